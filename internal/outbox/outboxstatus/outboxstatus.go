// Package outboxstatus is the integration_outbox lifecycle (seed 004): an
// entry's statuses, the outcomes of a delivery attempt and the status each
// outcome leaves the entry in, defined once for the outbox relay that
// decides them (package outbox), the store that persists them and the
// readers that report them.
//
// pending → processing (claimed) → completed | failed (to be claimed again
// at next_attempt_at) | dead_letter. A Retry of an entry that used all its
// attempts is DeadLettered. A Deferred attempt (not made) gives the
// claim's attempt back. dead_letter is final for every scheduled function;
// only an operator's requeue (Requeueable) makes it pending again, with a
// new round of attempts.
//
// It is a leaf (it imports nothing of StreamOps) so that package store can
// import it without a cycle: package outbox imports store, so the
// lifecycle cannot live in package outbox itself. What must not live here:
// anything that reads or writes state.
package outboxstatus

// The outbox entry statuses (seed 004).
const (
	Pending    = "pending"
	Processing = "processing"
	Completed  = "completed"
	Failed     = "failed"
	DeadLetter = "dead_letter"
)

// All lists every status, in lifecycle order (the API document's
// OutboxStatus enum).
func All() []string { return []string{Pending, Processing, Completed, Failed, DeadLetter} }

// Due lists the statuses of an entry waiting for delivery: it is claimed
// once its next_attempt_at has come.
func Due() []string { return []string{Pending, Failed} }

// Requeueable lists the statuses an operator's requeue makes due again:
// dead_letter alone. A failed entry is not: its retry is scheduled and its
// round is still the relay's.
func Requeueable() []string { return []string{DeadLetter} }

// Outcome is how a delivery attempt of an outbox entry ended.
type Outcome int

// Outcomes of a delivery attempt.
const (
	// Delivered: status completed, completed_at set.
	Delivered Outcome = iota + 1
	// Retry: status failed, to be claimed again at NextAttemptAt.
	Retry
	// DeadLettered: status dead_letter, never claimed again.
	DeadLettered
	// Deferred: not attempted (e.g. the endpoint's circuit breaker is open):
	// the claim's attempt is given back and the entry waits until
	// NextAttemptAt in the status it had.
	Deferred
)

// Recorded is the outcome recorded for an attempt that ended as o, the
// entry having made attempts of its maxAttempts: a Retry of an entry whose
// attempts are exhausted is DeadLettered.
func (o Outcome) Recorded(attempts, maxAttempts int) Outcome {
	if o == Retry && attempts >= maxAttempts {
		return DeadLettered
	}
	return o
}

// Status is the status outcome o leaves a claimed entry in; attempts
// counts the attempt being settled. A Deferred entry goes back to pending
// when the attempt it gives back was its first, to failed otherwise. It is
// "" for an unknown outcome.
func (o Outcome) Status(attempts int) string {
	switch o {
	case Delivered:
		return Completed
	case Retry:
		return Failed
	case DeadLettered:
		return DeadLetter
	case Deferred:
		if attempts > 1 {
			return Failed
		}
		return Pending
	}
	return ""
}
