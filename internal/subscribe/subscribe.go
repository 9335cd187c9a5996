// Package subscribe is what a partner asks to receive: event types, by
// exact name or prefix, and optionally a payload filter in MongoDB query
// syntax, evaluated against each stored event to fan it out to the
// partners that match (issue 35).
package subscribe

import "encoding/json"

// Subscription is one of a partner's subscriptions. An event matches when
// its type matches one of EventTypes ("workflow.completed" exactly,
// "task.*" every type under task., "*" every type) and, when Filter is
// set, the event's envelope (eventType, payload, metadata, … as stored)
// matches Filter as a MongoDB query.
type Subscription struct {
	// EventTypes are exact event types or prefixes ending in ".*"; "*" is
	// every type. At least one.
	EventTypes []string `json:"eventTypes"`
	// Filter is a MongoDB query object ({"payload.amount": {"$gt": 100}});
	// empty matches every event of EventTypes.
	Filter json.RawMessage `json:"filter,omitempty"`
}
