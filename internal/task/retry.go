package task

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/backoff"
	"github.com/streamops/streamops/internal/emit"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/stream"
	"github.com/streamops/streamops/internal/tracing"
)

// DefaultBackoff is the retry schedule of a failed task: 30 s, doubling per
// retry, capped at one hour, with full jitter (a uniform delay between zero
// and that), so tasks that failed together do not retry together.
var DefaultBackoff backoff.Policy = backoff.Exponential{Base: 30 * time.Second, Factor: 2, Max: time.Hour, Jitter: 1}

// RetrySource is metadata.source of a task.failed the retry-sweeper had to
// rebuild from the task's state because its stored event was gone (see
// Retrier.RetryDue); every other task.failed is the processor's.
const RetrySource = "retry-sweeper"

// Lifecycle event ids are derived, so a retried batch emits duplicates the
// store drops:
//
//	task.processing   DeriveID("evt-", taskId, "task.processing", retryCount)
//	task.failed       DeriveID("evt-", taskId, "task.failed", retryCount of the failed attempt),
//	                  that is the payload's retryCount - 1 (failedEventID)
//	task.completed    DeriveID("evt-", taskId, "task.completed")
//	task.dead_letter  DeriveID("evt-", taskId, "task.dead_letter")
//
// The one task.created of a task is its submitter's (the API, a webhook
// route, a workflow's notify step); nothing here emits one.
func attemptEventID(taskID string, t events.Type, retryCount int) string {
	return events.DeriveID(events.EventIDPrefix, taskID, string(t), strconv.Itoa(retryCount))
}

// failedEventID is the id of the task.failed that scheduled retry retry of
// taskID (retry ≥ 1): the one emitted when attempt retry-1 failed.
func failedEventID(taskID string, retry int) string {
	return attemptEventID(taskID, events.TaskFailed, retry-1)
}

func endEventID(taskID string, t events.Type) string {
	return events.DeriveID(events.EventIDPrefix, taskID, string(t))
}

// RetrierStore is what a Retrier reads and writes; *store.Store implements
// it.
type RetrierStore interface {
	DueTaskRetries(ctx context.Context, now time.Time, limit int) ([]store.Task, error)
	GetEvents(ctx context.Context, eventIDs []string) (map[string]store.EventDocument, error)
	MarkPublished(ctx context.Context, eventIDs ...string) error
	MarkTaskRetriesRedelivered(ctx context.Context, attempts ...store.TaskAttempt) (int, error)
}

// Retrier redelivers due task retries; it is the retry-sweeper's
// sweep.TaskRetrier. The retry contract between it, the task-processor and
// seed 003:
//
//   - A task has one task.created, ever: attempt 0. A retryable failure of
//     attempt r with retries left emits task.failed with retryCount r+1
//     and nextRetryAt, and stores the task failed at retryCount r+1 with
//     that nextRetryAt; the last failure, or a non-retryable one, emits
//     task.dead_letter instead.
//   - The task-processor consumes task.failed (seed 003: "Consumed by:
//     Event Processor (for retry logic)"). It runs attempt r+1 only while
//     the task is still at retryCount r+1, has not ended and its
//     nextRetryAt has come; that run emits task.processing with retryCount
//     r+1. A task.failed consumed before nextRetryAt is acknowledged
//     without running, so a delayed retry never holds back its partition.
//   - RetryDue runs when the retry-sweeper does: for each failed task whose
//     nextRetryAt has come, it publishes that task's stored task.failed
//     again (the same event, the same eventId: a redelivery, not a new
//     announcement), then marks the task pending at that retryCount
//     (store.MarkTaskRetriesRedelivered) so the next sweep passes over it.
//     A retry whose moment passed while the processor or the sweeper was
//     down is redelivered by the first sweep after; one whose redelivery is
//     lost is driven again as stalled work (State.RetryEventID).
//   - The task's state makes each attempt run once: a duplicate or late
//     task.failed finds the task past that retryCount (or ended) and is
//     skipped, and the store writes an outcome only while the task is at
//     its attempt. Event ids are derived (attemptEventID), so a retried
//     batch emits duplicates the store drops.
type Retrier struct {
	store     RetrierStore
	publisher emit.Publisher
	emitter   stream.Emitter
	log       *slog.Logger
}

// NewRetrier returns a Retrier that publishes stored task.failed events with
// pub and stores-and-publishes rebuilt ones with em; log may be nil
// (slog.Default()).
func NewRetrier(st RetrierStore, pub emit.Publisher, em stream.Emitter, log *slog.Logger) (*Retrier, error) {
	if st == nil || pub == nil || em == nil {
		return nil, errors.New("task: NewRetrier needs a store, a publisher and an emitter")
	}
	if log == nil {
		log = slog.Default()
	}
	return &Retrier{store: st, publisher: pub, emitter: em, log: log}, nil
}

// RetryDue redelivers up to limit failed tasks whose nextRetryAt is due at
// now, each as its stored task.failed, and returns how many it
// redelivered: two queries, one flush, one bulk update, whatever the
// count. A task whose task.failed is no longer stored gets it rebuilt from
// its state, with the same eventId, stored and published. Publishing
// before marking means a crash in between only redelivers a duplicate
// next sweep, which the processor skips.
func (r *Retrier) RetryDue(ctx context.Context, now time.Time, limit int) (int, error) {
	due, err := r.store.DueTaskRetries(ctx, now, limit)
	if err != nil || len(due) == 0 {
		return 0, err
	}
	tasks := make([]State, 0, len(due))
	ids := make([]string, 0, len(due))
	for _, doc := range due {
		t := FromDocument(doc)
		if !t.AwaitsRetry() {
			r.log.ErrorContext(ctx, "failed task at retryCount 0 has no retry to run", "taskId", t.ID)
			continue
		}
		tasks = append(tasks, t)
		ids = append(ids, failedEventID(t.ID, t.RetryCount))
	}
	stored, err := r.store.GetEvents(ctx, ids)
	if err != nil {
		return 0, err
	}
	var redeliver, rebuilt []events.Envelope
	for i, t := range tasks {
		// The retry continues the task's trace: its logs here, and the
		// task.failed (metadata.traceId, from which its record's
		// traceparent is made).
		tctx := tracing.Resume(ctx, t.TraceID, ids[i])
		if doc, ok := stored[ids[i]]; ok {
			env, err := doc.Envelope()
			if err == nil {
				redeliver = append(redeliver, stream.InTrace(env, t.TraceID))
				continue
			}
			r.log.ErrorContext(tctx, "stored task.failed does not decode; rebuilding it", "taskId", t.ID, "eventId", ids[i], "error", err)
		}
		env, err := failedEvent(t)
		if err != nil {
			r.log.ErrorContext(tctx, "task retry cannot be redelivered", "taskId", t.ID, "error", err)
			continue
		}
		r.log.WarnContext(tctx, "task.failed no longer stored; rebuilt from the task", "taskId", t.ID, "eventId", env.EventID)
		rebuilt = append(rebuilt, env)
	}

	var pubErr error
	if len(redeliver) > 0 {
		pubErr = r.publisher.Publish(ctx, redeliver...)
	}
	unpublished := emit.Unpublished(pubErr, redeliver)
	var published []string
	for _, env := range redeliver {
		if !unpublished[env.EventID] {
			published = append(published, env.EventID)
		}
	}
	// An event still waiting for its first publish has had it now.
	if err := r.store.MarkPublished(ctx, published...); err != nil {
		return 0, err
	}
	var emitErr error
	if len(rebuilt) > 0 {
		res, err := r.emitter.Emit(ctx, rebuilt...)
		published, emitErr = append(published, res.Published...), err
	}

	done := make(map[string]bool, len(published))
	for _, id := range published {
		done[id] = true
	}
	attempts := make([]store.TaskAttempt, 0, len(published))
	for i, t := range tasks {
		if done[ids[i]] {
			attempts = append(attempts, store.TaskAttempt{TaskID: t.ID, RetryCount: t.RetryCount})
		}
	}
	if _, err := r.store.MarkTaskRetriesRedelivered(ctx, attempts...); err != nil {
		return len(attempts), err
	}
	if len(attempts) > 0 {
		r.log.InfoContext(ctx, "task retries redelivered", "count", len(attempts))
	}
	return len(attempts), errors.Join(pubErr, emitErr)
}

// failedEvent rebuilds, from a task awaiting retry t.RetryCount, the
// task.failed that scheduled it: same eventId, failedAt when the failure
// was stored.
func failedEvent(t State) (events.Envelope, error) {
	if t.NextRetryAt == nil || t.LastError == nil {
		return events.Envelope{}, fmt.Errorf("task: %s is failed without nextRetryAt or lastError", t.ID)
	}
	failedAt := t.UpdatedAt
	if failedAt.IsZero() || failedAt.After(*t.NextRetryAt) {
		failedAt = *t.NextRetryAt
	}
	env, err := events.NewEventAt(events.TaskFailedPayload{TaskID: t.ID, FailedAt: events.At(failedAt),
		RetryCount: t.RetryCount, MaxRetries: t.MaxRetries, Error: *t.LastError, NextRetryAt: events.At(*t.NextRetryAt)},
		&events.Metadata{Source: RetrySource, CorrelationID: t.CorrelationID, PartnerID: t.PartnerID, UserID: events.OptionalString(t.UserID),
			TraceID: t.TraceID},
		failedEventID(t.ID, t.RetryCount), events.At(failedAt))
	if err != nil {
		return env, fmt.Errorf("task: rebuild task.failed of %s: %w", t.ID, err)
	}
	return env, nil
}
