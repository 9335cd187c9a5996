package bus

import (
	"fmt"
	"strings"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamops/streamops/internal/fault"
)

// ErrUnroutable is wrapped when an envelope cannot become a Kafka record: its
// type has no topic (webhook.received is history only) or its payload has no
// workflowId/taskId to key it by. Retrying never helps.
var ErrUnroutable error = &fault.Error{Message: "bus: event cannot be routed to a topic"}

// ErrUnacknowledged is wrapped when a record was handed to Kafka but not
// acknowledged within Config.ProduceTimeout (broker unreachable, leader
// election). The record may still land; publishing it again is safe because
// consumers dedupe by eventId. Always retryable.
var ErrUnacknowledged error = &fault.Error{Message: "bus: record not acknowledged in time", Retryable: true}

// PublishError lists the events (or records) of one Publish call that were
// not acknowledged by Kafka. Events not listed were published. It unwraps to
// every cause, so errors.Is(err, context.DeadlineExceeded) works.
type PublishError struct {
	// Failed has one entry per unpublished event, in input order.
	Failed []FailedEvent
	// Total is how many events or records the call tried to publish.
	Total int
}

// FailedEvent is one event (or raw record) that was not published.
type FailedEvent struct {
	// EventID is the envelope's eventId; empty for PublishRecords.
	EventID string
	// Topic and Key are where the record was headed.
	Topic string
	Key   string
	// Record is the record as produced; nil when the envelope never became
	// one (see ErrUnroutable).
	Record *kgo.Record
	// Err is why it failed; see fault.IsRetryable.
	Err error
}

// Error summarises the failures, naming at most a few event ids.
func (e *PublishError) Error() string {
	const show = 3
	var b strings.Builder
	fmt.Fprintf(&b, "bus: publish failed for %d of %d events", len(e.Failed), e.Total)
	for i, f := range e.Failed {
		if i == show {
			fmt.Fprintf(&b, "; and %d more", len(e.Failed)-show)
			break
		}
		id := f.EventID
		if id == "" {
			id = f.Topic + "/" + f.Key
		}
		fmt.Fprintf(&b, "; %s: %v", id, f.Err)
	}
	return b.String()
}

// Unwrap returns every failure's cause.
func (e *PublishError) Unwrap() []error {
	errs := make([]error, len(e.Failed))
	for i, f := range e.Failed {
		errs[i] = f.Err
	}
	return errs
}

// EventIDs returns the eventIds that stayed unpublished, in input order.
func (e *PublishError) EventIDs() []string {
	ids := make([]string, 0, len(e.Failed))
	for _, f := range e.Failed {
		ids = append(ids, f.EventID)
	}
	return ids
}

// Transient reports whether publishing the failed events again may
// succeed: true only if every failure is retryable, because one permanent
// failure in a batch fails that batch again on every retry.
func (e *PublishError) Transient() bool {
	if len(e.Failed) == 0 {
		return false
	}
	for _, f := range e.Failed {
		if !fault.IsRetryable(f.Err) {
			return false
		}
	}
	return true
}
