package events

import "fmt"

// Payload is implemented by the typed payload of every event type; it names
// the event type the payload belongs to, so New and PayloadAs can refuse a
// payload put in, or read from, the wrong kind of event.
type Payload interface {
	EventType() Type
}

// PayloadAs decodes the payload of e into a T, typically one of the
// *Payload structs of this package. When T is a Payload of another event
// type than e's, it fails rather than return a half-empty value.
func PayloadAs[T any](e Envelope) (T, error) {
	var p T
	// &p, not p: a value method is promoted to *T, and &p is never nil.
	if typed, ok := any(&p).(Payload); ok && typed.EventType() != e.EventType {
		return p, fmt.Errorf("events: %s payload asked of %s event %s", typed.EventType(), e.EventType, e.EventID)
	}
	err := e.DecodePayload(&p)
	return p, err
}
