package events

import (
	"encoding/json"
	"fmt"
	"strings"
)

// New builds an event of type t: it marshals payload, draws a fresh
// evt-{uuid} eventId, stamps the current time (UTC, milliseconds) and
// SchemaVersion, then validates the result against t's schema, so what a
// producer publishes is never a poison record for its consumers. meta may be
// nil. A Payload of another event type than t is refused.
func New(t Type, payload any, meta *Metadata) (Envelope, error) {
	return build(t, payload, meta, NewEventID(), Now())
}

// NewEventAt is NewEvent with the eventId and timestamp given, for the
// events whose ids are derived (a retried write then collides with the
// first instead of making a twin). Setting them on the envelope after
// NewEvent works too, but costs the producer an encoding (Encoding).
func NewEventAt(p Payload, meta *Metadata, id string, at Time) (Envelope, error) {
	return build(p.EventType(), p, meta, id, at)
}

func build(t Type, payload any, meta *Metadata, id string, at Time) (Envelope, error) {
	if p, ok := payload.(Payload); ok && p.EventType() != t {
		return Envelope{}, fmt.Errorf("events: %s payload given for a %s event", p.EventType(), t)
	}
	raw, err := json.Marshal(payload)
	if err != nil {
		return Envelope{}, fmt.Errorf("events: encode %s payload: %w", t, err)
	}
	e := Envelope{
		EventType:     t,
		EventID:       id,
		Timestamp:     at,
		SchemaVersion: SchemaVersion,
		Payload:       raw,
		Metadata:      meta,
	}
	doc, err := json.Marshal(plainEnvelope(e)) // no Extra: built, not consumed
	if err != nil {
		return Envelope{}, fmt.Errorf("events: encode %s event: %w", t, err)
	}
	decoded, err := validate(Produced, doc)
	if err != nil {
		return Envelope{}, err
	}
	e.encoding = newEncoding(e, doc, decoded)
	return e, nil
}

// encoding is an envelope's JSON with the field values it was marshalled
// from: New marshals every event to validate it, and that JSON is the
// Kafka record value byte for byte, so the producer need not encode the
// envelope again (Encoding).
type encoding struct {
	value, key []byte
	// from are the envelope's fields when marshalled (Payload's and
	// Metadata's by reference, meta the value Metadata pointed to).
	from Envelope
	meta Metadata
}

// newEncoding is e's encoding, doc its JSON and decoded doc as the schema
// validator decoded it; nil when the partition key cannot be read from
// decoded exactly as AggregateID would read it.
func newEncoding(e Envelope, doc []byte, decoded any) *encoding {
	payload, _ := decoded.(map[string]any)["payload"].(map[string]any)
	if payload == nil {
		return nil
	}
	for name := range payload {
		for _, field := range AggregateIDFields {
			if name != field && strings.EqualFold(name, field) {
				return nil // encoding/json matches names case-insensitively
			}
		}
	}
	var ids [len(AggregateIDFields)]string
	for i, field := range AggregateIDFields {
		switch v := payload[field].(type) {
		case nil:
		case string:
			ids[i] = v
		default:
			// An id of another type makes AggregateID "" for all of them,
			// which is not worth a special case here.
			return nil
		}
	}
	enc := &encoding{value: doc, key: []byte(pickAggregateID(ids)), from: e}
	if e.Metadata != nil {
		enc.meta = *e.Metadata
	}
	return enc
}

// Encoding returns the envelope's JSON and its partition key
// (AggregateID) as New produced them, and true, when no field was changed
// since: the Kafka record's value and key, with no encoding left to do. It
// returns false for an envelope New did not build (decoded, or written as
// a literal) or one a field of which was changed since (a new EventID,
// say). The bytes of Payload and of what Metadata points to are compared
// by reference and value: change them by assigning, never in place.
func (e *Envelope) Encoding() (value, key []byte, ok bool) {
	enc := e.encoding
	if enc == nil {
		return nil, nil, false
	}
	f := &enc.from
	same := e.EventType == f.EventType && e.EventID == f.EventID && e.Timestamp == f.Timestamp &&
		e.SchemaVersion == f.SchemaVersion && e.Extra == f.Extra && len(e.Payload) == len(f.Payload) &&
		(len(e.Payload) == 0 || &e.Payload[0] == &f.Payload[0]) &&
		e.Metadata == f.Metadata && (e.Metadata == nil || *e.Metadata == enc.meta)
	if !same {
		return nil, nil, false
	}
	return enc.value, enc.key, true
}

// NewEvent is New for a typed payload, whose type names the event type:
//
//	e, err := events.NewEvent(events.TaskProcessingPayload{…}, meta)
func NewEvent(p Payload, meta *Metadata) (Envelope, error) {
	return New(p.EventType(), p, meta)
}
