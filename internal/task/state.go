package task

import (
	"encoding/json"
	"time"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/fault"
	"github.com/streamops/streamops/internal/status"
	"github.com/streamops/streamops/internal/stream"
)

// State is a task as this package decides it: its submission, the attempt
// it is at (RetryCount) and how its last attempt ended. The methods are the
// lifecycle's transitions; the store only persists a State (see
// persist.go), so its document can change without moving a decision.
type State struct {
	// ID is the taskId.
	ID   string
	Type string
	Data json.RawMessage
	// Status is a status.Task… value.
	Status string
	// RetryCount is the attempt the task is at: the one it runs next (0,
	// its task.created; r ≥ 1, the task.failed that scheduled retry r).
	RetryCount int
	MaxRetries int
	// NextRetryAt is when a failed task's retry is due; nil when none is
	// scheduled.
	NextRetryAt *time.Time
	LastError   *events.TaskError
	Result      json.RawMessage
	// Origin is where the task came from: its task.created, correlation,
	// webhook event, partner, user and trace.
	stream.Origin
	CreatedAt   time.Time
	CompletedAt *time.Time
	// UpdatedAt is when the store last wrote the task (for a failed task,
	// its failure). Read, never written: the store stamps it.
	UpdatedAt time.Time
}

// Ended reports whether the task completed or was dead-lettered: no
// attempt runs any more.
func (s *State) Ended() bool { return status.TaskIsFinal(s.Status) }

// AwaitsRetry reports whether the task failed and waits for its next
// attempt: the retry its task.failed scheduled (see Retrier).
func (s *State) AwaitsRetry() bool { return s.Status == status.TaskFailed && s.RetryCount >= 1 }

// RetryEventID is the id of the task.failed that scheduled the retry the
// task is at, the stored event that drives it on; ok is false at attempt
// 0, which its task.created drives.
func (s *State) RetryEventID() (id string, ok bool) {
	if s.RetryCount < 1 {
		return "", false
	}
	return failedEventID(s.ID, s.RetryCount), true
}

// RetryLater reports whether the task failed and its retry is not due
// before NextRetryAt, which is after now: the attempt waits for the
// retry-sweeper to redeliver its task.failed then.
func (s *State) RetryLater(now time.Time) bool {
	return s.Status == status.TaskFailed && s.NextRetryAt != nil && s.NextRetryAt.After(now)
}

// RetryScheduled reports whether the task failed with its next attempt
// due at NextRetryAt.
func (s *State) RetryScheduled() bool { return s.Status == status.TaskFailed && s.NextRetryAt != nil }

// MayRetry reports whether an attempt that failed with err is retried: the
// error is retryable and retries are left.
func (s *State) MayRetry(err error) bool {
	return fault.IsRetryable(err) && s.RetryCount < s.MaxRetries
}

// Complete ends the task as completed at at with result.
func (s *State) Complete(at time.Time, result json.RawMessage) {
	s.Status, s.CompletedAt, s.Result, s.LastError, s.NextRetryAt = status.TaskCompleted, &at, result, nil, nil
}

// ScheduleRetry records a retryable failure of the current attempt: the
// task is failed, at its next attempt, due again at retryAt.
func (s *State) ScheduleRetry(retryAt time.Time, e events.TaskError) {
	s.Status, s.RetryCount, s.NextRetryAt, s.LastError = status.TaskFailed, s.RetryCount+1, &retryAt, &e
}

// DeadLetter ends the task as dead-lettered with its last error.
func (s *State) DeadLetter(e events.TaskError) {
	s.Status, s.NextRetryAt, s.LastError = status.TaskDeadLetter, nil, &e
}

// Settled is what the webhook event that started the task becomes once
// no attempt of it will run again: status.WebhookCompleted, or
// status.WebhookFailed with the task's last error when it was
// dead-lettered or failed with no retry scheduled. ok is false while an
// attempt may still run (see AwaitsRetry for one that is scheduled).
func (s *State) Settled() (to, message string, ok bool) {
	switch {
	case s.Status == status.TaskCompleted:
		return status.WebhookCompleted, "", true
	case s.Status == status.TaskDeadLetter, s.Status == status.TaskFailed && s.NextRetryAt == nil:
		message = "task " + s.Status
		if s.LastError != nil {
			message = s.LastError.Message
		}
		return status.WebhookFailed, message, true
	}
	return "", "", false
}
