package status

// The integration_outbox lifecycle (seed 004): pending → processing
// (claimed) → completed | failed (to be claimed again at next_attempt_at) |
// dead_letter. A retry of an entry that used all its attempts is dead
// lettered; a deferred attempt (not made) gives the claim's attempt back.
// dead_letter is final for every scheduled function; only an operator's
// requeue (OutboxRequeueable) makes it pending again, with a new round of
// attempts.
const (
	OutboxPending    = "pending"
	OutboxProcessing = "processing"
	OutboxCompleted  = "completed"
	OutboxFailed     = "failed"
	OutboxDeadLetter = "dead_letter"
)

// OutboxAll lists every outbox status, in lifecycle order (the API
// document's OutboxStatus enum).
func OutboxAll() []string {
	return []string{OutboxPending, OutboxProcessing, OutboxCompleted, OutboxFailed, OutboxDeadLetter}
}

// OutboxDue lists the statuses of an entry waiting for delivery: it is
// claimed once its next_attempt_at has come.
func OutboxDue() []string { return []string{OutboxPending, OutboxFailed} }

// OutboxRequeueable lists the statuses an operator's requeue makes due
// again: dead_letter alone. A failed entry is not: its retry is scheduled
// and its round is still the relay's.
func OutboxRequeueable() []string { return []string{OutboxDeadLetter} }

// OutboxResendable lists the statuses an operator's resend makes due
// again: completed alone, to send a delivered entry once more as a new
// round (a dead letter is requeued instead).
func OutboxResendable() []string { return []string{OutboxCompleted} }

// Outcome is how a delivery attempt of an outbox entry ended.
type Outcome int

// Outcomes of an outbox delivery attempt.
const (
	// OutcomeDelivered: status completed, completed_at set.
	OutcomeDelivered Outcome = iota + 1
	// OutcomeRetry: status failed, to be claimed again at NextAttemptAt.
	OutcomeRetry
	// OutcomeDeadLettered: status dead_letter, never claimed again.
	OutcomeDeadLettered
	// OutcomeDeferred: not attempted (e.g. the endpoint's circuit breaker
	// is open): the claim's attempt is given back and the entry waits until
	// NextAttemptAt in the status it had.
	OutcomeDeferred
	// OutcomeThrottled: the partner answered 429 or 503 with Retry-After.
	// Not a failure: like Deferred the claim's attempt is given back and
	// the entry waits until NextAttemptAt (the partner's hold end), and
	// its delivery log row says throttled.
	OutcomeThrottled
)

// OutcomeThrottledLog is the delivery log outcome of a throttled attempt
// (the other rows carry the status the attempt left).
const OutcomeThrottledLog = "throttled"

// Recorded is the outcome recorded for an attempt that ended as o, the
// entry having made attempts of its maxAttempts: a retry of an entry whose
// attempts are exhausted is dead lettered.
func (o Outcome) Recorded(attempts, maxAttempts int) Outcome {
	if o == OutcomeRetry && attempts >= maxAttempts {
		return OutcomeDeadLettered
	}
	return o
}

// Status is the outbox status outcome o leaves a claimed entry in;
// attempts counts the attempt being settled. A deferred entry goes back to
// pending when the attempt it gives back was its first, to failed
// otherwise. It is "" for an unknown outcome.
func (o Outcome) Status(attempts int) string {
	switch o {
	case OutcomeDelivered:
		return OutboxCompleted
	case OutcomeRetry:
		return OutboxFailed
	case OutcomeDeadLettered:
		return OutboxDeadLetter
	case OutcomeDeferred, OutcomeThrottled:
		if attempts > 1 {
			return OutboxFailed
		}
		return OutboxPending
	}
	return ""
}
