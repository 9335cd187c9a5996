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
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/stream"
)

// DefaultBackoff is the retry schedule of a failed task: 30 s, doubling per
// retry, capped at one hour, with full jitter (a uniform delay between zero
// and that), so tasks that failed together do not retry together.
var DefaultBackoff backoff.Policy = backoff.Exponential{Base: 30 * time.Second, Factor: 2, Max: time.Hour, Jitter: 1}

// RetrySource is metadata.source of the task.created events RetryEvent
// builds.
const RetrySource = "retry-sweeper"

// RetryEvent is the task.created the retry-sweeper emits for a failed task
// whose nextRetryAt has come. It is the retry contract between the sweeper
// and this processor:
//
//   - the payload is the task's own (taskId, type, data, maxRetries,
//     createdAt) with retryCount = t.RetryCount, the number of the retry:
//     the processor runs it as that attempt, and only while the task is
//     still at that retryCount;
//   - its eventId is derived from (taskId, "task.created", retryCount), so
//     a sweep that runs twice emits a duplicate the store drops;
//   - metadata carries source "retry-sweeper" and the task's correlationId,
//     partnerId and userId.
//
// Retrier does exactly that for the retry-sweeper; after emitting, it marks
// the tasks emitted (store.MarkTaskRetriesEmitted) so they stop being due.
func RetryEvent(t State, at time.Time) (events.Envelope, error) {
	if !t.AwaitsRetry() {
		return events.Envelope{}, fmt.Errorf("task: %s is %s at retryCount %d, not a failed task awaiting a retry", t.ID, t.Status, t.RetryCount)
	}
	env, err := events.NewEventAt(events.TaskCreatedPayload{
		TaskID: t.ID, Type: events.TaskType(t.Type), Data: t.Data,
		RetryCount: t.RetryCount, MaxRetries: t.MaxRetries, CreatedAt: events.At(t.CreatedAt),
	}, &events.Metadata{Source: RetrySource, CorrelationID: t.CorrelationID, PartnerID: t.PartnerID, UserID: events.OptionalString(t.UserID)},
		attemptEventID(t.ID, events.TaskCreated, t.RetryCount), events.At(at))
	if err != nil {
		return env, fmt.Errorf("task: build retry of %s: %w", t.ID, err)
	}
	return env, nil
}

// Lifecycle event ids are derived, so a retried batch emits duplicates:
//
//	task.processing   DeriveID("evt-", taskId, "task.processing", retryCount)
//	task.failed       DeriveID("evt-", taskId, "task.failed", retryCount of the failed attempt)
//	task.completed    DeriveID("evt-", taskId, "task.completed")
//	task.dead_letter  DeriveID("evt-", taskId, "task.dead_letter")
//	task.created      DeriveID("evt-", taskId, "task.created") for the first
//	                  attempt (as the API derives it), with retryCount for retries
func attemptEventID(taskID string, t events.Type, retryCount int) string {
	return events.DeriveID(events.EventIDPrefix, taskID, string(t), strconv.Itoa(retryCount))
}

func endEventID(taskID string, t events.Type) string {
	return events.DeriveID(events.EventIDPrefix, taskID, string(t))
}

// RetrierStore is what a Retrier reads and writes; *store.Store implements
// it.
type RetrierStore interface {
	DueTaskRetries(ctx context.Context, now time.Time, limit int) ([]store.Task, error)
	MarkTaskRetriesEmitted(ctx context.Context, attempts ...store.TaskAttempt) (int, error)
}

// Retrier re-emits due task retries; it is the retry-sweeper's
// sweep.TaskRetrier.
type Retrier struct {
	store   RetrierStore
	emitter stream.Emitter
	log     *slog.Logger
}

// NewRetrier returns a Retrier; log may be nil (slog.Default()).
func NewRetrier(st RetrierStore, em stream.Emitter, log *slog.Logger) (*Retrier, error) {
	if st == nil || em == nil {
		return nil, errors.New("task: NewRetrier needs a store and an emitter")
	}
	if log == nil {
		log = slog.Default()
	}
	return &Retrier{store: st, emitter: em, log: log}, nil
}

// RetryDue re-emits up to limit failed tasks whose nextRetryAt is due at
// now, each as RetryEvent, and returns how many it re-emitted: one query,
// one Emit, one bulk update, whatever the count. Emitting before marking
// means a crash in between only re-emits a duplicate next sweep.
func (r *Retrier) RetryDue(ctx context.Context, now time.Time, limit int) (int, error) {
	due, err := r.store.DueTaskRetries(ctx, now, limit)
	if err != nil || len(due) == 0 {
		return 0, err
	}
	envs := make([]events.Envelope, 0, len(due))
	attempts := make([]store.TaskAttempt, 0, len(due))
	for _, doc := range due {
		t := FromDocument(doc)
		env, err := RetryEvent(t, now)
		if err != nil {
			r.log.ErrorContext(ctx, "task retry cannot be emitted", "taskId", t.ID, "error", err)
			continue
		}
		envs = append(envs, env)
		attempts = append(attempts, store.TaskAttempt{TaskID: t.ID, RetryCount: t.RetryCount})
	}
	if len(envs) == 0 {
		return 0, nil
	}
	if _, err := r.emitter.Emit(ctx, envs...); err != nil {
		return 0, err
	}
	if _, err := r.store.MarkTaskRetriesEmitted(ctx, attempts...); err != nil {
		return len(envs), err
	}
	r.log.InfoContext(ctx, "task retries emitted", "count", len(envs))
	return len(envs), nil
}
