package outbox

import (
	"context"
	"encoding/json"
	"time"

	"github.com/streamops/streamops/internal/backoff"
	"github.com/streamops/streamops/internal/fault"
	"github.com/streamops/streamops/internal/status"
	"github.com/streamops/streamops/internal/tracing"
)

// Entry is a claimed outbox entry as the relay decides it: where it goes,
// what it carries and the attempt this claim makes. The methods are the
// entry's lifecycle decisions; the store only persists it (see
// persist.go), so its document can change without moving a decision.
type Entry struct {
	// ID is the outbox_id, and the webhook-id of a partner delivery.
	ID string
	// Target is the target_provider: TargetKafka or a partner id.
	Target        string
	AggregateType string
	AggregateID   string
	EventType     string
	Payload       json.RawMessage
	// Attempts counts the attempts made, this claim's included.
	Attempts    int
	MaxAttempts int
	// Requeues is how often an operator requeued the entry out of
	// dead_letter: each round of attempts has its own number.
	Requeues int
	// TraceParent and TraceID are the trace context of the step that
	// enqueued the entry; its deliveries continue that trace (Context).
	TraceParent, TraceID string
	// ThrottledSince is when the partner began throttling this entry
	// without a break; nil when it is not being throttled.
	ThrottledSince *time.Time

	claim claim
}

// Context is ctx continuing the trace that enqueued e: its traceparent,
// else its trace id resumed (the parent derived from the outbox id), else
// ctx as it is.
func (e Entry) Context(ctx context.Context) context.Context {
	if c := tracing.FromTraceparent(ctx, e.TraceParent, ""); c != ctx {
		return c
	}
	return tracing.Resume(ctx, e.TraceID, e.ID)
}

// claim is what the store needs back to settle the entry: the document it
// claimed, the claim that holds it, and when the entry was due (a pause
// defers it as it was due, so it keeps its place in line).
type claim struct {
	docID, token string
	due          time.Time
}

// maxAttempts is how many attempts the entry may make: partner deliveries
// are capped at seed 000's five (resilienceAttemptCount).
func (e Entry) maxAttempts(partner bool) int {
	if partner {
		return min(e.MaxAttempts, status.PartnerMaxAttempts)
	}
	return e.MaxAttempts
}

// exhausted reports whether a partner delivery was claimed beyond its
// attempts: it is dead-lettered without being sent.
func (e Entry) exhausted() bool { return e.Attempts > e.maxAttempts(true) }

// outcome decides how this claim of the entry ends: deferred until
// deferTill when a pause, a hold, a breaker or the partner's gate kept it from
// going out, throttled until holdTill when the partner asked to wait
// (throttleHold), delivered when err is nil, retried after policy's delay
// while the error is retryable and attempts are left, dead-lettered
// otherwise. next is when it is due again (Deferred, Throttled and Retry
// only).
func (e Entry) outcome(err error, deferTill, holdTill time.Time, partner bool, policy backoff.Policy, now time.Time) (o status.Outcome, next time.Time) {
	switch {
	case !deferTill.IsZero():
		return status.OutcomeDeferred, deferTill
	case !holdTill.IsZero():
		return status.OutcomeThrottled, holdTill
	case err == nil:
		return status.OutcomeDelivered, time.Time{}
	case fault.IsRetryable(err) && e.Attempts < e.maxAttempts(partner):
		return status.OutcomeRetry, now.Add(policy.Delay(e.Attempts))
	default:
		return status.OutcomeDeadLettered, time.Time{}
	}
}

// attemptRecorded reports whether this attempt goes into the partner
// event's resilienceAttemptCount, which holds attempts 1 to 5.
func (e Entry) attemptRecorded() bool {
	return e.Attempts >= 1 && e.Attempts <= status.PartnerMaxAttempts
}

// attemptStatus is the partner event status an attempt that ended in o
// leaves: SUCCESS when delivered; FAILED when it failed and is retried,
// or when it was the fifth (seed 000: FAILED with a fifth attempt is
// over); DEAD_LETTER when it ended the delivery before the fifth, so seed
// 000's "Failed Events for Retry" query never selects a dead letter.
func (e Entry) attemptStatus(o status.Outcome) string {
	switch {
	case o == status.OutcomeDelivered:
		return status.PartnerSuccess
	case o == status.OutcomeDeadLettered && e.Attempts < status.PartnerMaxAttempts:
		return status.PartnerDeadLetter
	}
	return status.PartnerFailed
}
