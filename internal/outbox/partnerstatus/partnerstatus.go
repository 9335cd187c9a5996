// Package partnerstatus is the partner delivery lifecycles: the statuses
// of a delivery to or from a partner (partner_events, seed 000) and its
// directions, and the states of a partner endpoint's circuit breaker
// (partner_endpoints). They are defined once for the code that decides
// them (the outbox relay for outbound deliveries and the breaker, webhook
// ingest for inbound deliveries, the retry-sweeper that gives up on them),
// the store that persists them and the readers that report them.
//
// An outbound delivery is PENDING when recorded; after each attempt it is
// SUCCESS (delivered), FAILED (the attempt failed: retried on seed 000's
// schedule while attempts are left, over after the fifth), or DEAD_LETTER
// (refused for good before the fifth attempt). An inbound one is recorded
// SUCCESS when its webhook was verified and stored.
//
// A breaker is closed (deliveries go out), open after a run of failures
// (deliveries are deferred), half_open once its cooldown is over (one
// delivery probes), then closed on success or open again on failure. A
// partner never seen has a closed breaker.
//
// It is a leaf (it imports nothing of StreamOps) so that package store can
// import it without a cycle: packages outbox and ingest import store.
// What must not live here: anything that reads or writes state.
package partnerstatus

// The partner event statuses (seed 000 event_status, and DeadLetter).
const (
	Pending    = "PENDING"
	Processing = "PROCESSING"
	Success    = "SUCCESS"
	// Failed is a delivery whose last attempt failed: with fewer than
	// MaxAttempts attempts its retry is scheduled (seed 000's "Failed
	// Events for Retry" selects it); with MaxAttempts it is over.
	Failed = "FAILED"
	// DeadLetter is a delivery that ended without success before its
	// MaxAttempts-th attempt: the partner refused it for good (a 4xx
	// other than 408 and 429), or its outbox entry allowed fewer attempts.
	// Not in seed 000's enum: FAILED with fewer than five attempts means
	// "to be retried" there, and this delivery must never be sent again
	// unless an operator requeues it.
	DeadLetter = "DEAD_LETTER"
)

// The directions of a partner event (seed 000 event_direction).
const (
	DirectionIn  = "IN"
	DirectionOut = "OUT"
)

// The states of a partner endpoint's circuit breaker.
const (
	BreakerClosed   = "closed"
	BreakerOpen     = "open"
	BreakerHalfOpen = "half_open"
)

// MaxAttempts caps a delivery's resilienceAttemptCount (seed 000 best
// practice 4: "Cap resilienceAttemptCount to prevent infinite loops"):
// attempt 5 is the last.
const MaxAttempts = 5

// IsDirection reports whether d is a direction.
func IsDirection(d string) bool { return d == DirectionIn || d == DirectionOut }
