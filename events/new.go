package events

import (
	"encoding/json"
	"fmt"
)

// New builds an event of type t: it marshals payload, draws a fresh
// evt-{uuid} eventId, stamps the current time (UTC, milliseconds) and
// SchemaVersion, then validates the result against t's schema, so what a
// producer publishes is never a poison record for its consumers. meta may be
// nil. A Payload of another event type than t is refused.
func New(t Type, payload any, meta *Metadata) (Envelope, error) {
	if p, ok := payload.(Payload); ok && p.EventType() != t {
		return Envelope{}, fmt.Errorf("events: %s payload given for a %s event", p.EventType(), t)
	}
	raw, err := json.Marshal(payload)
	if err != nil {
		return Envelope{}, fmt.Errorf("events: encode %s payload: %w", t, err)
	}
	e := Envelope{
		EventType:     t,
		EventID:       NewEventID(),
		Timestamp:     Now(),
		SchemaVersion: SchemaVersion,
		Payload:       raw,
		Metadata:      meta,
	}
	doc, err := json.Marshal(e)
	if err != nil {
		return Envelope{}, fmt.Errorf("events: encode %s event: %w", t, err)
	}
	if err := Validate(doc); err != nil {
		return Envelope{}, err
	}
	return e, nil
}

// NewEvent is New for a typed payload, whose type names the event type:
//
//	e, err := events.NewEvent(events.TaskProcessingPayload{…}, meta)
func NewEvent(p Payload, meta *Metadata) (Envelope, error) {
	return New(p.EventType(), p, meta)
}
