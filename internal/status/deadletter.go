package status

// The dead letter lifecycle: a record the processors could not use is open
// until an operator replays it (requeue) or discards it.
const (
	DeadLetterOpen      = "open"
	DeadLetterReplayed  = "replayed"
	DeadLetterDiscarded = "discarded"
)

// DeadLetterAll lists every dead letter status, in the order the API
// documents them.
func DeadLetterAll() []string {
	return []string{DeadLetterOpen, DeadLetterReplayed, DeadLetterDiscarded}
}

// DeadLetterIsResolution reports whether an open dead letter may be closed
// as s: replayed or discarded.
func DeadLetterIsResolution(s string) bool {
	return s == DeadLetterReplayed || s == DeadLetterDiscarded
}
