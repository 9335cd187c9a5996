package sweep

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/deadline"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/stream"
	"github.com/streamops/streamops/internal/task"
	"github.com/streamops/streamops/internal/tracing"
	"github.com/streamops/streamops/internal/workflow"
)

// DefaultStallAfter is how long a workflow, task or processing webhook
// event may go without progress before the sweeper drives it again: twice
// the longest processor timeout (the task-processor's 5 min), so work that
// is merely running is never taken for stalled.
const DefaultStallAfter = 10 * time.Minute

// DefaultGiveUpAfter is how long a stored event may stay unpublished before
// the sweeper dead-letters it: a day, the deployed event source mappings'
// maximum record age, so what could still be consumed is still retried.
const DefaultGiveUpAfter = 24 * time.Hour

// redriveStalled drives again, from its stored state, whatever stayed
// non-terminal with no progress for StallAfter: it publishes the stored
// event that drives the workflow or task (its newest workflow.created; a
// task's task.created, or the task.failed of the retry it is at, see
// taskDriver; their ids are deterministic and the processors resume from
// their checkpoints, so this is idempotent), and settles or re-drives the
// work of webhook events left processing. Each item is stamped re-driven,
// so it is tried again only after another StallAfter without progress.
func (s *Sweeper) redriveStalled(ctx context.Context, st *Stats) error {
	before := s.cfg.Now().Add(-s.cfg.StallAfter)
	driven := map[string]bool{}
	return errors.Join(
		redriveEach(ctx, s, before, &st.WorkflowsRedriven, s.cfg.Store.StalledWorkflows,
			func(wf store.Workflow) string { return wf.WorkflowID },
			func(wf store.Workflow) error {
				return s.redrive(tracing.Resume(ctx, wf.TraceID, wf.EventID), st, wf.WorkflowID, wf.TraceID,
					s.newestOf(wf.WorkflowID, events.WorkflowCreated), driven)
			},
			s.cfg.Store.MarkWorkflowRedriven),
		redriveEach(ctx, s, before, &st.TasksRedriven, s.cfg.Store.StalledTasks,
			func(t store.Task) string { return t.TaskID },
			func(t store.Task) error {
				return s.redrive(tracing.Resume(ctx, t.TraceID, t.EventID), st, t.TaskID, t.TraceID,
					s.taskDriver(task.FromDocument(t)), driven)
			},
			s.cfg.Store.MarkTaskRedriven),
		// Webhook events left processing: the work they started ended
		// (settle the row), is still going (drive it on), or is missing
		// (publish the *.created event stored for the delivery, or route
		// it again when not even that was stored).
		redriveEach(ctx, s, before, &st.WebhooksRedriven, s.cfg.Store.StalledWebhookEvents,
			func(row store.WebhookEvent) string { return row.EventID },
			func(row store.WebhookEvent) error { return s.redriveWebhookEvent(ctx, st, row, driven) },
			s.cfg.Store.MarkWebhookEventRedriven),
	)
}

// redriveEach is the pass over one kind of stalled item: batch after batch
// of what stalled lists (stalled before, BatchSize at a time) until none is
// left or the deadline nears, each driven again (drive), counted in
// redriven and stamped re-driven (mark, by its id) so the next batch and
// the next run pass over it until it stalls again.
func redriveEach[T any](ctx context.Context, s *Sweeper, before time.Time, redriven *int,
	stalled func(ctx context.Context, before time.Time, limit int) ([]T, error),
	id func(T) string, drive func(T) error, mark func(ctx context.Context, id string) error) error {
	for deadline.Left(ctx, s.cfg.SafetyMargin) {
		items, err := stalled(ctx, before, s.cfg.BatchSize)
		if err != nil || len(items) == 0 {
			return err
		}
		for _, item := range items {
			if err := drive(item); err != nil {
				return err
			}
			*redriven++
			if err := mark(ctx, id(item)); err != nil {
				return err
			}
		}
	}
	return nil
}

func (s *Sweeper) redriveWebhookEvent(ctx context.Context, st *Stats, row store.WebhookEvent, driven map[string]bool) error {
	wfDoc, taskDoc, err := s.cfg.Store.WorkStartedBy(ctx, row)
	if err != nil {
		return err
	}
	// Whether the work ended, and what that makes the webhook event, is
	// its domain's decision (workflow.State, task.State).
	switch {
	case wfDoc != nil:
		wf := workflow.FromDocument(*wfDoc)
		if status, msg, ok := wf.Settled(); ok {
			return s.settle(ctx, row, wf.ID, status, msg)
		}
		trace := cmp.Or(wf.TraceID, row.TraceID)
		return s.redriveStarted(tracing.Resume(ctx, trace, wf.EventID), st, row, wf.ID, trace,
			s.newestOf(wf.ID, events.WorkflowCreated), driven)
	case taskDoc != nil:
		t := task.FromDocument(*taskDoc)
		if status, msg, ok := t.Settled(); ok {
			return s.settle(ctx, row, t.ID, status, msg)
		}
		if t.RetryScheduled() {
			return nil // its retry is due later; the retry pass redelivers it
		}
		trace := cmp.Or(t.TraceID, row.TraceID)
		return s.redriveStarted(tracing.Resume(ctx, trace, t.EventID), st, row, t.ID, trace, s.taskDriver(t), driven)
	}
	doc, err := s.cfg.Store.LatestDrivingEvent(ctx, row.EventID, true, events.WorkflowCreated, events.TaskCreated)
	if errors.Is(err, store.ErrNotFound) {
		s.cfg.Logger.WarnContext(ctx, "stalled webhook event started nothing that was stored: routing it again",
			"webhookEventId", row.EventID)
		s.routeAgain(ctx, st, row)
		return nil
	}
	if err != nil {
		return err
	}
	return s.publishStored(tracing.Resume(ctx, row.TraceID, row.EventID), doc, row.EventID, row.TraceID, driven)
}

// redriveStarted drives on the workflow or task a stalled webhook event
// started; when its driving event was never stored (the webhook function
// writes the projection and the events side by side, and stopped between
// them), routing the row again stores it, with the same ids, and
// publishes it.
func (s *Sweeper) redriveStarted(ctx context.Context, st *Stats, row store.WebhookEvent, aggregateID, traceID string, find driver, driven map[string]bool) error {
	if driven[aggregateID] {
		return nil
	}
	doc, err := find(ctx)
	if errors.Is(err, store.ErrNotFound) {
		s.cfg.Logger.WarnContext(ctx, "stalled webhook event's work has no stored event: routing it again",
			"webhookEventId", row.EventID, "aggregateId", aggregateID)
		driven[aggregateID] = true
		s.routeAgain(ctx, st, row)
		return nil
	}
	if err != nil {
		return err
	}
	return s.publishStored(ctx, doc, aggregateID, traceID, driven)
}

// routeAgain routes a stalled webhook event again; a failure is counted
// and logged, and the next stall period tries again.
func (s *Sweeper) routeAgain(ctx context.Context, st *Stats, row store.WebhookEvent) {
	ctx = tracing.Resume(ctx, row.TraceID, row.EventID)
	if err := s.cfg.Router.Route(ctx, row); err != nil {
		st.RedriveFailed++
		s.cfg.Logger.WarnContext(ctx, "stalled webhook event not routable", "webhookEventId", row.EventID, "error", err)
	}
}

// settle gives a stalled webhook event the end of runID, its work: only
// when that is the run its current attempt started (store.WebhookOutcome).
func (s *Sweeper) settle(ctx context.Context, row store.WebhookEvent, runID, status, msg string) error {
	_, err := s.cfg.Store.SettleWebhookEvents(ctx, store.WebhookOutcome{EventID: row.EventID, RunID: runID, Status: status, Error: msg})
	if err == nil {
		s.cfg.Logger.InfoContext(ctx, "settled a stalled webhook event from its work's end", "webhookEventId", row.EventID,
			"status", status)
	}
	return err
}

// driver finds the stored event that drives an aggregate on.
type driver func(ctx context.Context) (store.EventDocument, error)

// newestOf is the driver of aggregateID that finds its newest stored event
// of type typ.
func (s *Sweeper) newestOf(aggregateID string, typ events.Type) driver {
	return func(ctx context.Context) (store.EventDocument, error) {
		return s.cfg.Store.LatestDrivingEvent(ctx, aggregateID, false, typ)
	}
}

// taskDriver is the driver of t's next attempt: the task.failed that
// scheduled the retry it is at (by its derived id, task.State.RetryEventID),
// or at attempt 0 its newest task.created. A retry is never driven by the
// task.created, which the processor would skip.
func (s *Sweeper) taskDriver(t task.State) driver {
	if id, ok := t.RetryEventID(); ok {
		return func(ctx context.Context) (store.EventDocument, error) { return s.cfg.Store.GetEvent(ctx, id) }
	}
	return s.newestOf(t.ID, events.TaskCreated)
}

// redrive publishes the stored event find finds to drive aggregateID,
// once per run. An aggregate with no such event stored is counted as a
// failed re-drive and left for people to see.
func (s *Sweeper) redrive(ctx context.Context, st *Stats, aggregateID, traceID string, find driver, driven map[string]bool) error {
	if driven[aggregateID] {
		return nil
	}
	doc, err := find(ctx)
	if errors.Is(err, store.ErrNotFound) {
		// Not marked driven: a webhook row that started it routes it
		// again in the webhook pass (redriveStarted).
		st.RedriveFailed++
		s.cfg.Logger.WarnContext(ctx, "stalled and no stored event drives it", "aggregateId", aggregateID, "error", err)
		return nil
	}
	if err != nil {
		return err
	}
	return s.publishStored(ctx, doc, aggregateID, traceID, driven)
}

// publishStored publishes a stored event again; a failure ends the pass
// (the broker is likely down; the next run retries). The event stays in
// the trace of the work it drives: its own metadata.traceId, else
// traceID, the one its aggregate stored (stream.InTrace); ctx resumes
// that trace (tracing.Resume) for the logs.
func (s *Sweeper) publishStored(ctx context.Context, doc store.EventDocument, aggregateID, traceID string, driven map[string]bool) error {
	env, err := doc.Envelope()
	if err != nil {
		return fmt.Errorf("sweep: re-drive %s: %w", aggregateID, err)
	}
	env = stream.InTrace(env, traceID)
	if err := s.cfg.Publisher.Publish(ctx, env); err != nil {
		return fmt.Errorf("sweep: re-drive %s: %w", aggregateID, err)
	}
	driven[aggregateID] = true
	// An event still waiting for its first publish has had it now; the
	// store marks only such events (a published one is left as it is).
	if err := s.cfg.Store.MarkPublished(ctx, env.EventID); err != nil {
		return err
	}
	s.cfg.Logger.InfoContext(ctx, "re-drove stalled work", "aggregateId", aggregateID, "eventId", env.EventID,
		"eventType", env.EventType)
	return nil
}
