package task

import (
	"encoding/json"

	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/stream"
)

// The one place a task's State meets its store document: loaded with
// FromDocument, saved with (*State).outcome. Nothing else in this package
// reads or writes a store.Task's fields.

// FromDocument is the State a stored task is in.
func FromDocument(t store.Task) State {
	return State{
		ID: t.TaskID, Type: t.Type, Data: json.RawMessage(t.Data), Status: t.Status,
		RetryCount: t.RetryCount, MaxRetries: t.MaxRetries, NextRetryAt: t.NextRetryAt, LastError: t.LastError,
		Result: json.RawMessage(t.Result), Origin: stream.Origin{EventID: t.EventID, CorrelationID: t.CorrelationID,
			WebhookEventID: t.WebhookEventID, PartnerID: t.PartnerID, UserID: t.UserID, TraceID: t.TraceID},
		CreatedAt: t.CreatedAt, CompletedAt: t.CompletedAt,
		UpdatedAt: t.UpdatedAt,
	}
}

// outcome is what store.Store.SaveTaskOutcomes writes for s after the
// attempt at retryCount attempt.
func (s *State) outcome(attempt int) store.TaskOutcome {
	return store.TaskOutcome{Attempt: attempt, Task: store.Task{
		ID: s.ID, TaskID: s.ID, Type: s.Type, Data: store.JSONDoc(s.Data), Status: s.Status,
		RetryCount: s.RetryCount, MaxRetries: s.MaxRetries, NextRetryAt: s.NextRetryAt, LastError: s.LastError,
		Result: store.JSONDoc(s.Result), EventID: s.EventID, CorrelationID: s.CorrelationID,
		WebhookEventID: s.WebhookEventID, PartnerID: s.PartnerID, UserID: s.UserID, TraceID: s.TraceID, CreatedAt: s.CreatedAt, CompletedAt: s.CompletedAt,
	}}
}
