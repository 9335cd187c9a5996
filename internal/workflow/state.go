package workflow

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/status"
	"github.com/streamops/streamops/internal/stream"
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
	// Origin is where the workflow came from: its workflow.created,
	// correlation, webhook event, partner, user and trace.
	stream.Origin
	CreatedAt   time.Time
	StartedAt   *time.Time
	CompletedAt *time.Time
	// Attempt is the run: 1 the first, 2, 3, … those reruns started.
	Attempt int
	// Rederive says the run starts at Next without the records that step
	// reads (a rerun from a step before the one that failed, or of a
	// completed workflow): they are computed again from the input.
	Rederive bool
	// Reruns are the reruns asked for, oldest first.
	Reruns []Rerun
}

// Rerun is one rerun of a workflow (store.WorkflowRerun): the run it
// started, where, asked by whom, when, under which Idempotency-Key.
type Rerun struct {
	Attempt                     int
	FromStep                    string
	FromStepIndex               int
	PreviousStatus              string
	EventID, RequestedBy        string
	RequestedAt                 time.Time
	IdempotencyKey, RequestHash string
}

// RerunByKey is the rerun asked for under key, if any.
func (s *State) RerunByKey(key string) (Rerun, bool) {
	if key == "" {
		return Rerun{}, false
	}
	for _, r := range s.Reruns {
		if r.IdempotencyKey == key {
			return r, true
		}
	}
	return Rerun{}, false
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

// metadata is what the run's events carry: rt's, with the attempt from
// the second run on.
func (s *State) metadata(rt stream.Runtime) *events.Metadata {
	md := rt.Metadata(s.Origin)
	if s.Attempt > 1 {
		md.Attempt = s.Attempt
	}
	return md
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

// Fail ends the workflow as failed in step i at at; records, what step i
// was given, are kept for a rerun from it.
func (s *State) Fail(i int, at time.Time, e events.WorkflowError, records []json.RawMessage) {
	s.Status, s.Next, s.CompletedAt, s.Resume, s.Error = status.WorkflowFailed, i, &at, slices.Clone(records), &e
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

// RerunRefusal is why a workflow cannot be rerun as asked: Conflict when
// it is its state (still running; completed, and no step named), else
// the step named (unknown, not one of its steps, after the one that
// failed).
type RerunRefusal struct {
	Conflict bool
	Reason   string
}

func (r *RerunRefusal) Error() string { return r.Reason }

// RerunFrom decides where a rerun asked to start at fromStep starts: the
// index of that step (the first of its name), or of the failed step when
// fromStep is empty. A step after the failed one is refused: the records
// it reads were never produced. rederive says the run must compute the
// records that step reads again (State.Rederive): all but a rerun from
// the first step, or from the failed step whose records were kept.
func (s *State) RerunFrom(fromStep string) (index int, rederive bool, err error) {
	switch {
	case !s.Ended():
		return 0, false, &RerunRefusal{Conflict: true, Reason: fmt.Sprintf(
			"workflow %s is still %s (attempt %d): wait until it completed or failed", s.ID, s.Status, s.Attempt)}
	case fromStep == "" && !s.Failed():
		return 0, false, &RerunRefusal{Conflict: true, Reason: fmt.Sprintf(
			"workflow %s completed: nothing failed, name the step to rerun from in fromStep (its steps: %s)", s.ID, strings.Join(s.Steps, ", "))}
	case fromStep == "":
		index = s.Next
	default:
		index = slices.Index(s.Steps, fromStep)
		switch {
		case index < 0 && !events.KnownStep(fromStep):
			return 0, false, &RerunRefusal{Reason: fmt.Sprintf("unknown step %q (known steps: %s)", fromStep, strings.Join(events.Steps, ", "))}
		case index < 0:
			return 0, false, &RerunRefusal{Reason: fmt.Sprintf("%q is not a step of workflow %s (its steps: %s)", fromStep, s.ID, strings.Join(s.Steps, ", "))}
		case s.Failed() && index > s.Next:
			return 0, false, &RerunRefusal{Reason: fmt.Sprintf("step %s comes after %s, the step that failed: the records it reads were never produced; rerun from %s or a step before it",
				fromStep, s.Steps[s.Next], s.Steps[s.Next])}
		}
	}
	kept := s.Failed() && index == s.Next && len(s.Resume) > 0
	return index, index > 0 && !kept, nil
}
