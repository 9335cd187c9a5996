// Package deadletterstatus is the dead letter lifecycle: a record the
// processors could not use is open until an operator replays it (requeue)
// or discards it. It is defined once for the code that decides it (the
// stream core opens dead letters, package history requeues them, the API
// discards them), the store that persists it and the readers that filter
// by it.
//
// It is a leaf (it imports nothing of StreamOps) so that package store can
// import it without a cycle: package stream imports store. What must not
// live here: anything that reads or writes state.
package deadletterstatus

// The dead letter statuses.
const (
	Open      = "open"
	Replayed  = "replayed"
	Discarded = "discarded"
)

// All lists every dead letter status, in the order the API documents them.
func All() []string { return []string{Open, Replayed, Discarded} }

// IsResolution reports whether an open dead letter may be closed as s:
// replayed or discarded.
func IsResolution(s string) bool { return s == Replayed || s == Discarded }
