package workflow

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/status"
	"github.com/streamops/streamops/internal/store"
)

// TestStateRoundTripsEveryCheckpointField: a field persist.go forgot would
// be lost at the next flush, so every field a checkpoint writes comes back
// from State unchanged.
func TestStateRoundTripsEveryCheckpointField(t *testing.T) {
	at := time.Date(2026, 1, 4, 1, 10, 0, 0, time.UTC)
	started, done := at.Add(time.Second), at.Add(time.Minute)
	cp := store.WorkflowCheckpoint{
		Workflow: store.Workflow{
			ID: "wf-1", WorkflowID: "wf-1", Name: "Invoice Sync", Steps: []string{"validate", "transform", "store"},
			Priority: "high", Input: store.JSONDoc(`{"records":[]}`), Status: status.WorkflowProcessing,
			CurrentStepIndex: 1, StepAttempts: 2,
			StepResults: []store.StepProgress{{StepName: "validate", StepIndex: 0, CompletedAt: at, Duration: 12, Result: store.JSONDoc(`{"recordsProcessed":1}`)}},
			Error:       &events.WorkflowError{Code: "X", Message: "m"}, EventID: "evt-1", CorrelationID: "corr-1",
			WebhookEventID: "hook-1", PartnerID: "acme", CreatedAt: at, StartedAt: &started, CompletedAt: &done,
		},
		ResumeRecords: []store.JSONDoc{store.JSONDoc(`{"id":1}`)},
	}
	st := fromCheckpoint(cp)
	assert.Equal(t, cp, st.document())
	assert.Equal(t, []json.RawMessage{json.RawMessage(`{"id":1}`)}, st.Resume)
	assert.Equal(t, FromDocument(cp.Workflow).Done, st.Done)

	// What a checkpoint does not write is not carried, except the long
	// attempts the store recorded while a step ran, which are loaded and
	// never saved (RecordStepAttempt writes them).
	cp.IdempotencyKey, cp.RequestHash, cp.UpdatedAt, cp.AttemptStepIndex, cp.StepAttemptsStarted = "key", "hash", at, 1, 3
	want := st
	want.AttemptStep, want.AttemptsStarted = 1, 3
	loaded := fromCheckpoint(cp)
	assert.Equal(t, want, loaded)
	assert.Equal(t, 4, loaded.StepStarts(1), "three recorded long attempts and this one")
	assert.Equal(t, 1, loaded.StepStarts(2))
	saved := loaded.document()
	assert.Zero(t, saved.AttemptStepIndex)
	assert.Zero(t, saved.StepAttemptsStarted)
}

func TestStepStatusIsWhereEachStepStands(t *testing.T) {
	tests := []struct {
		name   string
		status string
		next   int
		done   int
		want   []string
	}{
		{"pending", status.WorkflowPending, 0, 0, []string{StepPending, StepPending, StepPending}},
		{"processing the second", status.WorkflowProcessing, 1, 1, []string{StepCompleted, StepRunning, StepPending}},
		{"failed in the second", status.WorkflowFailed, 1, 1, []string{StepCompleted, StepFailed, StepPending}},
		{"completed", status.WorkflowCompleted, 3, 3, []string{StepCompleted, StepCompleted, StepCompleted}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := State{Steps: []string{"a", "b", "c"}, Status: tt.status, Next: tt.next, Done: make([]StepDone, tt.done)}
			var got []string
			for i := range s.Steps {
				got = append(got, s.StepStatus(i))
			}
			assert.Equal(t, tt.want, got)
		})
	}
}
