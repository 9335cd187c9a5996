package submit

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/status"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/tracing"
	"github.com/streamops/streamops/internal/workflow"
)

// RerunRequest is the body of POST /api/workflows/{id}/rerun.
type RerunRequest struct {
	// FromStep is the step the rerun starts at; empty: the step that
	// failed.
	FromStep string `json:"fromStep,omitempty"`
}

// Rerunner loads workflows and stores their reruns; *store.Store
// implements it.
type Rerunner interface {
	GetWorkflow(ctx context.Context, workflowID string) (store.Workflow, error)
	GetWorkflowCheckpoints(ctx context.Context, workflowIDs []string) (map[string]store.WorkflowCheckpoint, error)
	RerunWorkflow(ctx context.Context, loaded store.Workflow, rerun store.WorkflowRerun, resume []store.JSONDoc, rederive bool) error
	WorkflowExpired(ctx context.Context, workflowID string) (bool, error)
}

// ErrNoRerunner: the Service was built without a Rerunner.
var ErrNoRerunner = errors.New("submit: reruns need a store that stores them")

// RerunWorkflow starts a new run (attempt) of a workflow that ended, from
// req.FromStep (default: the step that failed), the steps before it kept
// with their stored results (workflow.State.RerunFrom decides). The rerun
// is stored first (the workflow pending again at that step, the rerun in
// its Reruns), then its workflow.created, carrying metadata.attempt, is
// stored and published: a crash in between leaves a pending workflow the
// retry-sweeper drives again by publishing its newest workflow.created,
// and the workflow-processor runs the workflow from its stored state
// whichever one it reads. It returns the workflow as stored after.
//
// A request repeated with the same Idempotency-Key answers the rerun the
// first one started (and publishes its event again, completing a first
// attempt that stopped before it); with another fromStep or principal it
// is ErrIdempotencyConflict. Refusals: store.ErrNotFound (no such
// workflow), store.ErrExpired (one its retention deleted, with the
// records its failed step read), a *store.StatusConflictError (still
// running; completed and no fromStep), a *ValidationError on fromStep
// (unknown step, not one of the workflow's, after the failed one).
func (s *Service) RerunWorkflow(ctx context.Context, workflowID string, req RerunRequest, by Caller) (store.Workflow, error) {
	st, ok := s.store.(Rerunner)
	if !ok {
		return store.Workflow{}, ErrNoRerunner
	}
	hash := RequestHash(req, by.UserID)
	ctx, end := EnsureTrace(ctx, "rerun workflow")
	defer end()
	for range 3 { // a concurrent rerun or run: decide again on what is stored now
		cps, err := st.GetWorkflowCheckpoints(ctx, []string{workflowID})
		if err != nil {
			return store.Workflow{}, err
		}
		cp, found := cps[workflowID]
		if !found {
			return store.Workflow{}, s.notFound(ctx, st, workflowID)
		}
		doc := cp.Workflow
		wf := workflow.FromCheckpoint(cp)
		// A rerun continues the workflow's trace, so one trace tells its
		// whole story; one stored before issue 26 has none, and the
		// rerun stays in the request's.
		ctx := tracing.Resume(ctx, doc.TraceID, workflowID)
		md := rerunMetadata(ctx, doc, by)
		if r, found := wf.RerunByKey(by.IdempotencyKey); found {
			if r.RequestHash != hash {
				return store.Workflow{}, fmt.Errorf("%w: key %q", ErrIdempotencyConflict, by.IdempotencyKey)
			}
			return doc, s.announce(ctx, wf, r, md)
		}
		from, rederive, err := wf.RerunFrom(req.FromStep)
		if err != nil {
			return store.Workflow{}, rerunRefused(err, wf.Status)
		}
		attempt := wf.Attempt + 1
		r := workflow.Rerun{
			Attempt: attempt, FromStep: wf.Steps[from], FromStepIndex: from, PreviousStatus: wf.Status,
			EventID:     events.DeriveID(events.EventIDPrefix, workflowID, string(events.WorkflowCreated), "attempt", strconv.Itoa(attempt)),
			RequestedBy: by.UserID, RequestedAt: s.now().UTC().Truncate(time.Millisecond), IdempotencyKey: by.IdempotencyKey, RequestHash: hash,
		}
		env, err := rerunEvent(wf, r, md)
		if err == nil {
			err = s.emitter.CheckSize(env)
		}
		if err != nil {
			return store.Workflow{}, fmt.Errorf("submit: rerun %s: %w", workflowID, err)
		}
		var resume []store.JSONDoc
		if !rederive && from > 0 {
			resume = workflow.ResumeDocuments(wf.Resume)
		}
		err = st.RerunWorkflow(ctx, doc, r.Document(), resume, rederive)
		if errors.Is(err, store.ErrStatusConflict) {
			continue
		}
		if err != nil {
			return store.Workflow{}, fmt.Errorf("submit: rerun %s: %w", workflowID, err)
		}
		if _, err := s.emitter.Emit(ctx, env); err != nil {
			return store.Workflow{}, err
		}
		s.log.InfoContext(ctx, "workflow rerun", "workflowId", workflowID, "attempt", attempt, "fromStep", r.FromStep, "eventId", r.EventID)
		return st.GetWorkflow(ctx, workflowID)
	}
	return store.Workflow{}, fmt.Errorf("%w: workflow %s kept changing while its rerun was decided; try again", store.ErrStatusConflict, workflowID)
}

// notFound is the refusal of a rerun of workflowID, not stored:
// store.ErrExpired when its retention deleted it (and with it the records
// its failed step read), store.ErrNotFound otherwise.
func (s *Service) notFound(ctx context.Context, st Rerunner, workflowID string) error {
	expired, err := st.WorkflowExpired(ctx, workflowID)
	switch {
	case err != nil:
		return err
	case expired:
		return fmt.Errorf("%w: workflow %s ended longer ago than its retention (STREAMOPS_WORKFLOWS_TTL) and was deleted, "+
			"with the records its failed step read; it can no longer be rerun, submit it again", store.ErrExpired, workflowID)
	}
	return store.ErrNotFound
}

// announce stores and publishes again the workflow.created of rerun r (a
// duplicate when the first request got that far).
func (s *Service) announce(ctx context.Context, wf workflow.State, r workflow.Rerun, md events.Metadata) error {
	env, err := rerunEvent(wf, r, md)
	if err == nil {
		_, err = s.emitter.Emit(ctx, env)
	}
	return err
}

// rerunMetadata is the metadata of a rerun of doc asked for by by (but
// its userId: rerunEvent's), in ctx's trace (the workflow's): the workflow's correlation id, or, for one
// stored without, the request's.
func rerunMetadata(ctx context.Context, doc store.Workflow, by Caller) events.Metadata {
	correlationID := doc.CorrelationID
	if correlationID == "" {
		correlationID = by.CorrelationID
	}
	return *metadata("", tracing.TraceID(ctx), correlationID)
}

// rerunEvent is the workflow.created that announces rerun r of wf: the
// workflow's submission as it was, metadata md with attempt r.Attempt,
// the id and time r holds, so building it again gives the same event.
func rerunEvent(wf workflow.State, r workflow.Rerun, md events.Metadata) (events.Envelope, error) {
	md.UserID = metadata(r.RequestedBy, "", "").UserID
	md.PartnerID, md.Attempt = wf.PartnerID, r.Attempt
	p := events.WorkflowCreatedPayload{WorkflowID: wf.ID, Name: wf.Name, Steps: wf.Steps,
		Priority: events.Priority(wf.Priority), CreatedAt: events.At(wf.CreatedAt), Input: wf.Input}
	return events.NewEventAt(p, &md, r.EventID, events.At(r.RequestedAt))
}

// rerunRefused is the error of a refused rerun: a conflict with the
// workflow's status, or a bad fromStep.
func rerunRefused(err error, current string) error {
	var refusal *workflow.RerunRefusal
	if !errors.As(err, &refusal) {
		return err
	}
	if refusal.Conflict {
		return fmt.Errorf("%s: %w", refusal.Reason, &store.StatusConflictError{Action: "rerun", Status: current,
			Allowed: []string{status.WorkflowFailed, status.WorkflowCompleted}})
	}
	return &ValidationError{Field: "fromStep", Reason: refusal.Reason}
}
