// Package partnerstatus is the partner_events lifecycle (seed 000): the
// statuses of a delivery to or from a partner and its directions, defined
// once for the code that decides them (the outbox relay for outbound
// deliveries, webhook ingest for inbound ones, the retry-sweeper that
// gives up on them), the store that persists them and the readers that
// report them.
//
// An outbound delivery is PENDING when recorded, PROCESSING while its
// attempts go on, then SUCCESS or FAILED; an inbound one is recorded
// SUCCESS when its webhook was verified and stored.
//
// It is a leaf (it imports nothing of StreamOps) so that package store can
// import it without a cycle: packages outbox and ingest import store.
// What must not live here: anything that reads or writes state.
package partnerstatus

// The partner event statuses (seed 000 event_status).
const (
	Pending    = "PENDING"
	Processing = "PROCESSING"
	Success    = "SUCCESS"
	Failed     = "FAILED"
)

// The directions of a partner event (seed 000 event_direction).
const (
	DirectionIn  = "IN"
	DirectionOut = "OUT"
)

// IsDirection reports whether d is a direction.
func IsDirection(d string) bool { return d == DirectionIn || d == DirectionOut }
