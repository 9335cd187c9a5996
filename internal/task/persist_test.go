package task

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/status"
	"github.com/streamops/streamops/internal/store"
)

// TestStateRoundTripsEveryOutcomeField: a field persist.go forgot would be
// lost at the next flush, so every field an outcome writes comes back from
// State unchanged.
func TestStateRoundTripsEveryOutcomeField(t *testing.T) {
	at := time.Date(2026, 1, 4, 1, 10, 0, 0, time.UTC)
	next, done := at.Add(time.Minute), at.Add(time.Hour)
	doc := store.Task{
		ID: "task-1", TaskID: "task-1", Type: "email_notification", Data: store.JSONDoc(`{"recipient":"a@example.com"}`),
		Status: status.TaskFailed, RetryCount: 2, MaxRetries: 3, NextRetryAt: &next,
		LastError: &events.TaskError{Code: "X", Message: "m", Retryable: true}, Result: store.JSONDoc(`{"ok":true}`),
		EventID: "evt-1", CorrelationID: "corr-1", WebhookEventID: "hook-1", PartnerID: "acme", CreatedAt: at, CompletedAt: &done,
	}
	st := FromDocument(doc)
	assert.Equal(t, store.TaskOutcome{Task: doc, Attempt: 1}, st.outcome(1))

	// What an outcome does not write is not carried: the store keeps it.
	// UpdatedAt is read (a rebuilt task.failed's failedAt), never written.
	doc.IdempotencyKey, doc.RequestHash, doc.UpdatedAt = "key", "hash", at
	st.UpdatedAt = at
	assert.Equal(t, st, FromDocument(doc))
}

// TestRetryLaterHoldsOnlyAFailedTaskWhoseRetryIsNotYetDue: the processor
// runs a retry from its nextRetryAt on, and only a failed task waits.
func TestRetryLaterHoldsOnlyAFailedTaskWhoseRetryIsNotYetDue(t *testing.T) {
	now := time.Date(2026, 1, 4, 1, 10, 0, 0, time.UTC)
	later, earlier := now.Add(time.Millisecond), now.Add(-time.Millisecond)
	tests := []struct {
		name string
		task State
		wait bool
	}{
		{"failed, due later", State{Status: status.TaskFailed, RetryCount: 1, NextRetryAt: &later}, true},
		{"failed, due now", State{Status: status.TaskFailed, RetryCount: 1, NextRetryAt: &now}, false},
		{"failed, due before", State{Status: status.TaskFailed, RetryCount: 1, NextRetryAt: &earlier}, false},
		{"failed, no retry scheduled", State{Status: status.TaskFailed, RetryCount: 1}, false},
		{"pending: the sweeper redelivered its retry", State{Status: status.TaskPending, RetryCount: 1}, false},
		{"pending, first attempt", State{Status: status.TaskPending}, false},
		{"completed", State{Status: status.TaskCompleted, RetryCount: 1, NextRetryAt: &later}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.wait, tt.task.RetryLater(now))
		})
	}
}

func TestSettledIsWhatTheTasksEndMakesItsWebhookEvent(t *testing.T) {
	due := time.Date(2026, 1, 4, 1, 10, 0, 0, time.UTC)
	tests := []struct {
		name          string
		task          State
		status, msg   string
		settled       bool
		scheduled     bool
		awaitingRetry bool
	}{
		{"pending", State{Status: status.TaskPending}, "", "", false, false, false},
		{"processing", State{Status: status.TaskProcessing}, "", "", false, false, false},
		{"completed", State{Status: status.TaskCompleted}, status.WebhookCompleted, "", true, false, false},
		{"dead-lettered", State{Status: status.TaskDeadLetter, LastError: &events.TaskError{Message: "bad recipient"}},
			status.WebhookFailed, "bad recipient", true, false, false},
		{"dead-lettered without an error", State{Status: status.TaskDeadLetter}, status.WebhookFailed, "task dead_letter", true, false, false},
		{"failed, no retry scheduled", State{Status: status.TaskFailed, RetryCount: 1}, status.WebhookFailed, "task failed", true, false, true},
		{"failed, retry scheduled", State{Status: status.TaskFailed, RetryCount: 1, NextRetryAt: &due}, "", "", false, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, msg, ok := tt.task.Settled()
			assert.Equal(t, tt.settled, ok)
			assert.Equal(t, tt.status, status)
			assert.Equal(t, tt.msg, msg)
			assert.Equal(t, tt.scheduled, tt.task.RetryScheduled())
			assert.Equal(t, tt.awaitingRetry, tt.task.AwaitsRetry())
		})
	}
}
