package workflow

import (
	"encoding/json"
	"slices"
	"time"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/status"
)

// State is a workflow as this package decides it: its submission, where
// its run stands (status, next step, attempts, finished steps, the records
// the next step reads) and how it ended. The methods are the lifecycle's
// transitions; the store only persists a State (see persist.go), so its
// document can change without moving a decision.
type State struct {
	// ID is the workflowId.
	ID       string
	Name     string
	Steps    []string
	Priority string
	Input    json.RawMessage
	// Status is a status.Workflow… value.
	Status string
	// Next is the step running or next to run (currentStepIndex).
	Next int
	// Attempts counts the next step's transient failures in a row; 0 once
	// it completes.
	Attempts int
	// AttemptStep and AttemptsStarted are the step whose long attempts the
	// store recorded while they ran, and how many: attempts that outlived
	// the function's timeout were killed before any checkpoint, and only
	// this count says they were tried. Loaded, never saved with a State.
	AttemptStep, AttemptsStarted int
	// Done holds one entry per finished step, in order.
	Done []StepDone
	// Resume are the records step Next reads, kept while the workflow is
	// processing so a redelivered batch resumes there.
	Resume []json.RawMessage
	Error  *events.WorkflowError
	// EventID is the workflow.created that started it.
	EventID        string
	CorrelationID  string
	WebhookEventID string
	PartnerID      string
	// UserID is the principal whose request started the workflow
	// (metadata.userId of all its events); empty for a webhook delivery's.
	UserID      string
	CreatedAt   time.Time
	StartedAt   *time.Time
	CompletedAt *time.Time
}

// StepDone is one finished step of a workflow.
type StepDone struct {
	Name        string
	Index       int
	CompletedAt time.Time
	// Duration is in milliseconds.
	Duration int64
	Result   json.RawMessage
}

// Active reports whether the workflow may still run (pending or
// processing); a workflow.created for one that is not is skipped.
func (s *State) Active() bool { return status.WorkflowIsActive(s.Status) }

// Ended reports whether the workflow completed or failed.
func (s *State) Ended() bool { return status.WorkflowIsFinal(s.Status) }

// Completed reports whether the workflow completed.
func (s *State) Completed() bool { return s.Status == status.WorkflowCompleted }

// Failed reports whether the workflow failed.
func (s *State) Failed() bool { return s.Status == status.WorkflowFailed }

// Delivers reports whether the workflow is a webhook's and still has to
// run a deliver step, which needs the webhook's provider.
func (s *State) Delivers() bool {
	return s.WebhookEventID != "" && !s.Ended() && slices.Contains(s.Steps, "deliver")
}

// Start marks the workflow processing, first started at now unless it was
// started before, and returns the step its run starts at.
func (s *State) Start(now time.Time) int {
	if s.StartedAt == nil {
		s.StartedAt = &now
	}
	s.Status = status.WorkflowProcessing
	return min(max(s.Next, 0), len(s.Steps))
}

// Pause checkpoints a run that stops before step i: the redelivered batch
// resumes there with records.
func (s *State) Pause(i int, records []json.RawMessage) {
	s.Next, s.Resume = i, slices.Clone(records)
}

// StepStarts is how many times step i has been started, this start
// included.
func (s *State) StepStarts(i int) int {
	if s.AttemptStep == i {
		return 1 + s.AttemptsStarted
	}
	return 1
}

// StartedTooOften reports whether step Next, started started times (this
// attempt included), outlived the limit of maxAttempts without finishing.
func (s *State) StartedTooOften(started, maxAttempts int) bool { return started > maxAttempts }

// RetryStep counts a transient failure of the step started started times
// and reports whether it may be tried again (fewer than maxAttempts in a
// row); if not, the workflow is to fail with CodeRetriesExhausted.
func (s *State) RetryStep(started, maxAttempts int) bool {
	s.Attempts = max(s.Attempts+1, started)
	return s.Attempts < maxAttempts
}

// CompleteStep records a finished step and moves on to the next one.
func (s *State) CompleteStep(d StepDone) {
	s.Done = append(s.Done[:min(d.Index, len(s.Done))], d)
	s.Next, s.Attempts = d.Index+1, 0
}

// Fail ends the workflow as failed in step i at at.
func (s *State) Fail(i int, at time.Time, e events.WorkflowError) {
	s.Status, s.Next, s.CompletedAt, s.Resume, s.Error = status.WorkflowFailed, i, &at, nil, &e
}

// Complete ends the workflow as completed at at and returns how long it
// ran, in milliseconds, since it first started.
func (s *State) Complete(at time.Time) int64 {
	s.Status, s.CompletedAt, s.Resume, s.Error = status.WorkflowCompleted, &at, nil, nil
	return max(at.Sub(*s.StartedAt).Milliseconds(), 0)
}

// Where a step of a workflow stands (State.StepStatus), as GET
// /api/workflows/{id} shows each step.
const (
	StepPending   = "pending"
	StepRunning   = "running"
	StepCompleted = "completed"
	StepFailed    = "failed"
)

// StepStatus is where step i stands: completed once it finished; running
// or failed when it is the step the workflow is processing or failed in;
// pending otherwise.
func (s *State) StepStatus(i int) string {
	switch {
	case i < len(s.Done):
		return StepCompleted
	case i == s.Next && s.Status == status.WorkflowProcessing:
		return StepRunning
	case i == s.Next && s.Failed():
		return StepFailed
	}
	return StepPending
}

// Settled is what the webhook event that started the workflow becomes
// once it ended: status.WebhookCompleted, or status.WebhookFailed with the
// workflow's error. ok is false while the workflow has not ended.
func (s *State) Settled() (to, message string, ok bool) {
	switch {
	case s.Completed():
		return status.WebhookCompleted, "", true
	case s.Failed():
		message = "workflow failed"
		if s.Error != nil {
			message = s.Error.Message
		}
		return status.WebhookFailed, message, true
	}
	return "", "", false
}
