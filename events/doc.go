// Package events is the StreamOps event catalog: the seed-003 envelope, a
// typed payload for every event type, the JSON Schema of each (embedded and
// enforced by Validate), and constructors that fill ids and timestamps.
//
// Everything that crosses Kafka or lands in the events collection is an
// Envelope defined here. The package has no I/O and imports nothing of AWS,
// Kafka or MongoDB, so every other package may depend on it.
//
// What must not live here: Kafka, storage or HTTP code; a package that
// carries events imports this one, never the other way round.
package events
