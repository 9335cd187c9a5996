package workflow

import (
	"context"
	"fmt"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/metrics"
	"github.com/streamops/streamops/internal/store"
)

// flush writes what a batch's runs produced, one bulk write per collection,
// in an order that makes every prefix safe to repeat: the steps' effects,
// then the events (one Emit), then webhook outcomes, and last the
// checkpoints, which are what make a redelivered workflow.created a skip or
// a resume. A failure returns the error so the whole batch is delivered
// again; what was written before it is then written again as duplicates.
func (s *Service) flush(ctx context.Context, touched []*state) error {
	if len(touched) == 0 {
		return nil
	}
	var effects Effects
	var evs []events.Envelope
	var hooks []store.WebhookOutcome
	cps := make([]store.WorkflowCheckpoint, 0, len(touched))
	var completed, failed, steps int
	for _, st := range touched {
		effects.add(&st.effects)
		evs = append(evs, st.events...)
		if st.webhook != nil {
			hooks = append(hooks, *st.webhook)
		}
		cps = append(cps, st.cp)
		steps += st.steps
		switch st.cp.Status {
		case store.WorkflowCompleted:
			completed++
		case store.WorkflowFailed:
			failed++
		}
	}
	if len(effects.records) > 0 {
		if _, err := s.cfg.Store.InsertWorkflowRecords(ctx, effects.records...); err != nil {
			return fmt.Errorf("workflow: %w", err)
		}
	}
	if len(effects.tasks) > 0 {
		if _, err := s.cfg.Store.InsertTasks(ctx, effects.tasks...); err != nil {
			return fmt.Errorf("workflow: %w", err)
		}
	}
	if len(effects.outbox) > 0 {
		if _, err := s.cfg.Store.EnqueueOutbox(ctx, effects.outbox...); err != nil {
			return fmt.Errorf("workflow: %w", err)
		}
	}
	if _, err := s.cfg.Emitter.Emit(ctx, append(evs, effects.events...)...); err != nil {
		return fmt.Errorf("workflow: %w", err)
	}
	if _, err := s.cfg.Store.SettleWebhookEvents(ctx, hooks...); err != nil {
		return fmt.Errorf("workflow: %w", err)
	}
	if _, err := s.cfg.Store.SaveWorkflowCheckpoints(ctx, cps...); err != nil {
		return fmt.Errorf("workflow: %w", err)
	}
	s.cfg.Metrics.Record(
		metrics.Metric{Name: "WorkflowsCompleted", Unit: metrics.Count, Value: float64(completed)},
		metrics.Metric{Name: "WorkflowsFailed", Unit: metrics.Count, Value: float64(failed)},
		metrics.Metric{Name: "StepsCompleted", Unit: metrics.Count, Value: float64(steps)},
	)
	return nil
}
