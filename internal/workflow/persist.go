package workflow

import (
	"encoding/json"

	"github.com/streamops/streamops/internal/fault"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/stream"
)

// The one place a workflow's State meets its store document: loaded with
// FromDocument, saved with (*State).document. Nothing else in this package
// reads or writes a store.Workflow's fields. A step's Effects are store
// documents too (custom steps build them: the public Effects API takes
// them), so they are checked here, where they meet the store
// (checkWrites).

// FromDocument is the State a stored workflow is in.
func FromDocument(wf store.Workflow) State {
	return fromCheckpoint(store.WorkflowCheckpoint{Workflow: wf})
}

// FromCheckpoint is the State a stored workflow is in, with the records
// its next (or failed) step reads.
func FromCheckpoint(cp store.WorkflowCheckpoint) State { return fromCheckpoint(cp) }

func fromCheckpoint(cp store.WorkflowCheckpoint) State {
	s := State{
		ID: cp.WorkflowID, Name: cp.Name, Steps: cp.Steps, Priority: cp.Priority, Input: json.RawMessage(cp.Input),
		Status: cp.Status, Next: cp.CurrentStepIndex, Attempts: cp.StepAttempts, Error: cp.Error,
		Origin: stream.Origin{EventID: cp.EventID, CorrelationID: cp.CorrelationID, WebhookEventID: cp.WebhookEventID,
			PartnerID: cp.PartnerID, UserID: cp.UserID, TraceID: cp.TraceID},
		CreatedAt: cp.CreatedAt, StartedAt: cp.StartedAt, CompletedAt: cp.CompletedAt,
		AttemptStep: cp.AttemptStepIndex, AttemptsStarted: cp.StepAttemptsStarted,
		Attempt: max(cp.Attempt, 1), Rederive: cp.RederiveInput,
	}
	if cp.StepResults != nil {
		s.Done = make([]StepDone, len(cp.StepResults))
		for i, r := range cp.StepResults {
			s.Done[i] = StepDone{Name: r.StepName, Index: r.StepIndex, CompletedAt: r.CompletedAt, Duration: r.Duration,
				Result: json.RawMessage(r.Result)}
		}
	}
	for _, r := range cp.Reruns {
		s.Reruns = append(s.Reruns, Rerun{Attempt: r.Attempt, FromStep: r.FromStep, FromStepIndex: r.FromStepIndex,
			PreviousStatus: r.PreviousStatus, EventID: r.EventID, RequestedBy: r.RequestedBy, RequestedAt: r.RequestedAt,
			IdempotencyKey: r.IdempotencyKey, RequestHash: r.RequestHash})
	}
	if cp.ResumeRecords != nil {
		s.Resume = make([]json.RawMessage, len(cp.ResumeRecords))
		for i, r := range cp.ResumeRecords {
			s.Resume[i] = json.RawMessage(r)
		}
	}
	return s
}

// document is the checkpoint store.Store.SaveWorkflowCheckpoints writes
// for s.
func (s *State) document() store.WorkflowCheckpoint {
	cp := store.WorkflowCheckpoint{Workflow: store.Workflow{
		ID: s.ID, WorkflowID: s.ID, Name: s.Name, Steps: s.Steps, Priority: s.Priority, Input: store.JSONDoc(s.Input),
		Status: s.Status, CurrentStepIndex: s.Next, StepAttempts: s.Attempts, Error: s.Error,
		EventID: s.EventID, CorrelationID: s.CorrelationID, WebhookEventID: s.WebhookEventID, PartnerID: s.PartnerID,
		UserID: s.UserID, TraceID: s.TraceID, CreatedAt: s.CreatedAt, StartedAt: s.StartedAt, CompletedAt: s.CompletedAt,
	}}
	if s.Attempt > 1 {
		cp.Attempt = s.Attempt
	}
	if s.Done != nil {
		cp.StepResults = make([]store.StepProgress, len(s.Done))
		for i, d := range s.Done {
			cp.StepResults[i] = store.StepProgress{StepName: d.Name, StepIndex: d.Index, CompletedAt: d.CompletedAt,
				Duration: d.Duration, Result: store.JSONDoc(d.Result)}
		}
	}
	if s.Resume != nil {
		cp.ResumeRecords = make([]store.JSONDoc, len(s.Resume))
		for i, r := range s.Resume {
			cp.ResumeRecords[i] = store.JSONDoc(r)
		}
	}
	return cp
}

// Document is r as store.Store.RerunWorkflow stores it.
func (r Rerun) Document() store.WorkflowRerun {
	return store.WorkflowRerun{Attempt: r.Attempt, FromStep: r.FromStep, FromStepIndex: r.FromStepIndex,
		PreviousStatus: r.PreviousStatus, EventID: r.EventID, RequestedBy: r.RequestedBy, RequestedAt: r.RequestedAt,
		IdempotencyKey: r.IdempotencyKey, RequestHash: r.RequestHash}
}

// ResumeDocuments are records as a checkpoint stores them.
func ResumeDocuments(records []json.RawMessage) []store.JSONDoc {
	docs := make([]store.JSONDoc, len(records))
	for i, r := range records {
		docs[i] = store.JSONDoc(r)
	}
	return docs
}

// checkWrites rejects the writes step name asked for that the batch's bulk
// writes would refuse (a record without workflowId or object, a task
// without taskId, an outbox entry without id, target or object payload),
// so a bad step fails its workflow instead of every delivery of the batch.
func (e *Effects) checkWrites(name string) error {
	for _, rec := range e.records {
		if rec.WorkflowID == "" || !isObject(json.RawMessage(rec.Record)) {
			return fault.Permanent(CodeInvalidResult, "step %s asked to store a record without workflowId or object", name)
		}
	}
	for _, t := range e.tasks {
		if t.TaskID == "" {
			return fault.Permanent(CodeInvalidResult, "step %s asked to start a task without taskId", name)
		}
	}
	for _, o := range e.outbox {
		if o.OutboxID == "" || o.TargetProvider == "" || !isObject(json.RawMessage(o.Payload)) {
			return fault.Permanent(CodeInvalidResult, "step %s asked for an outbox entry without id, target or object payload", name)
		}
	}
	return nil
}
