package status

// The partner delivery lifecycle (partner_events, seed 000 event_status,
// and PartnerDeadLetter). An outbound delivery is PENDING when recorded,
// PROCESSING while a relay's claim attempts it (until the claim's lease:
// a claim not attempted, or whose relay died, goes back to FAILED, or
// PENDING before its first attempt); after each attempt it is SUCCESS
// (delivered), FAILED (the attempt
// failed: retried on seed 000's schedule while attempts are left, over
// after the fifth), or DEAD_LETTER (refused for good before the fifth
// attempt). An inbound one is recorded SUCCESS when its webhook was
// verified and stored.
const (
	PartnerPending = "PENDING"
	// PartnerProcessing is a delivery a relay is sending right now: seed
	// 000's "Failed Events for Retry" never selects it.
	PartnerProcessing = "PROCESSING"
	PartnerSuccess    = "SUCCESS"
	// PartnerFailed is a delivery whose last attempt failed: with fewer
	// than PartnerMaxAttempts attempts its retry is scheduled (seed 000's
	// "Failed Events for Retry" selects it); with PartnerMaxAttempts it is
	// over.
	PartnerFailed = "FAILED"
	// PartnerDeadLetter is a delivery that ended without success before its
	// PartnerMaxAttempts-th attempt: the partner refused it for good (a 4xx
	// other than 408 and 429), or its outbox entry allowed fewer attempts.
	// Not in seed 000's enum: FAILED with fewer than five attempts means
	// "to be retried" there, and this delivery must never be sent again
	// unless an operator requeues it.
	PartnerDeadLetter = "DEAD_LETTER"
)

// The directions of a partner event (seed 000 event_direction).
const (
	DirectionIn  = "IN"
	DirectionOut = "OUT"
)

// The states of a partner endpoint's circuit breaker (partner_endpoints):
// closed (deliveries go out), open after a run of failures (deliveries are
// deferred), half_open once its cooldown is over (one delivery probes),
// then closed on success or open again on failure. A partner never seen
// has a closed breaker.
const (
	BreakerClosed   = "closed"
	BreakerOpen     = "open"
	BreakerHalfOpen = "half_open"
)

// PartnerMaxAttempts caps a delivery's resilienceAttemptCount (seed 000
// best practice 4: "Cap resilienceAttemptCount to prevent infinite
// loops"): attempt 5 is the last.
const PartnerMaxAttempts = 5

// IsDirection reports whether d is a partner event direction.
func IsDirection(d string) bool { return d == DirectionIn || d == DirectionOut }
