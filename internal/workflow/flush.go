package workflow

import (
	"context"
	"fmt"

	"github.com/streamops/streamops/internal/metrics"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/stream"
)

// Flush writes what a batch's runs produced, one bulk write per collection,
// in an order that makes every prefix safe to repeat: the steps' effects,
// then the consumed events the history lacks, the events, dead letters and
// webhook outcomes (stream.Runtime.Commit, also when no workflow changed),
// and last the checkpoints, which are what make a redelivered
// workflow.created a skip or a resume. A failure returns the error so the
// whole batch is delivered again; what was written before it is then
// written again as duplicates.
func (s workflows) Flush(ctx context.Context, b *stream.Batch, touched []*state) error {
	var effects Effects
	outs := make([]*stream.Outcome, 0, len(touched))
	cps := make([]store.WorkflowCheckpoint, 0, len(touched))
	var completed, failed, steps int
	for _, st := range touched {
		effects.add(&st.effects)
		outs = append(outs, &st.Outcome)
		cps = append(cps, st.wf.document())
		steps += st.steps
		switch {
		case st.wf.Completed():
			completed++
		case st.wf.Failed():
			failed++
		}
	}
	if err := s.writeEffects(ctx, &effects); err != nil {
		return fmt.Errorf("workflow: %w", err)
	}
	if err := s.cfg.Commit(ctx, b, s.cfg.Store, outs, effects.events...); err != nil {
		return err
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

// writeEffects applies the steps' writes, one bulk write per collection.
func (s workflows) writeEffects(ctx context.Context, e *Effects) error {
	if len(e.records) > 0 {
		if _, err := s.cfg.Store.InsertWorkflowRecords(ctx, e.records...); err != nil {
			return err
		}
	}
	if len(e.tasks) > 0 {
		if _, err := s.cfg.Store.InsertTasks(ctx, e.tasks...); err != nil {
			return err
		}
	}
	if len(e.outbox) > 0 {
		if _, err := s.cfg.Store.EnqueueOutbox(ctx, e.outbox...); err != nil {
			return err
		}
	}
	return nil
}
