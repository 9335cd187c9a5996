package workflow

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"slices"
	"time"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/fault"
	"github.com/streamops/streamops/internal/status"
	"github.com/streamops/streamops/internal/store"
)

// handle applies one workflow.created to its workflow: skipped when the
// workflow already ended, otherwise run from its checkpoint. It returns a
// retryable error when the run stopped early (progress is in st, to be
// checkpointed); any other error means the record cannot be processed.
func (s workflows) handle(ctx context.Context, st *state, it item) error {
	log := s.cfg.Logger.With("workflowId", st.wf.ID, "eventId", it.Msg.Envelope.EventID, "record", it.Msg.String())
	if !st.wf.Active() {
		log.InfoContext(ctx, "workflow already processed, skipping", "currentStatus", st.wf.Status)
		return nil
	}
	if len(st.wf.Steps) == 0 {
		return fmt.Errorf("workflow %s has no steps", st.wf.ID)
	}
	if s.cfg.NearDeadline(ctx) {
		return ErrDeadline
	}
	return s.run(ctx, st, log)
}

// run executes the workflow's steps from its checkpoint, in memory, and
// commits the outcome to st: the new State, the lifecycle events and the
// steps' effects. Nothing is committed when an event cannot be built. The
// decisions (where to start, whether to retry, how it ended) are State's.
func (s workflows) run(ctx context.Context, st *state, log *slog.Logger) error {
	wf := st.wf
	wf.Done = slices.Clone(wf.Done)
	var evs []events.Envelope
	var effects Effects
	var done int // steps completed in this run
	commit := func() {
		st.wf = wf
		st.Change()
		st.Events = append(st.Events, evs...)
		st.effects.add(&effects)
		st.steps += done
	}
	emit := func(p events.Payload, id string, at time.Time) error {
		env, err := s.cfg.Event(p, runEventID(id, wf.Attempt), at, wf.metadata(s.cfg.Runtime))
		evs = append(evs, env)
		return err
	}

	id, steps := wf.ID, wf.Steps
	now := s.cfg.Now()
	first := wf.Start(now)
	if first < len(steps) {
		if err := emit(events.WorkflowProcessingPayload{WorkflowID: id, StartedAt: events.At(now),
			CurrentStep: steps[first], CurrentStepIndex: first}, stepEventID(id, events.WorkflowProcessing, first), now); err != nil {
			return err
		}
	}

	input, inputErr := ParseInput(wf.Input)
	records := input.Records
	switch {
	case first > 0 && wf.Rederive && inputErr == nil:
		records, inputErr = s.rederive(ctx, st, input, first)
	case first > 0:
		records = slices.Clone(wf.Resume)
	}
	wf.Rederive = false
	end := now
	for i := first; i < len(steps); i++ {
		name := steps[i]
		if i > first && s.cfg.NearDeadline(ctx) {
			wf.Pause(i, records)
			commit()
			return ErrDeadline
		}
		// Attempts of this step that outlived the function's timeout: they
		// were killed before anything was checkpointed, and only this count,
		// loaded with the batch's projections, says they were tried.
		started := wf.StepStarts(i)
		var err error
		start := s.cfg.Now()
		var stepEffects Effects
		res := StepOutput{}
		switch {
		case inputErr != nil:
			err = inputErr
		case wf.StartedTooOften(started, s.cfg.MaxStepAttempts):
			err = fault.Permanent(CodeRetriesExhausted, "step %s was started %d times without finishing (each attempt outlived the function's timeout or failed transiently)", name, started-1)
		default:
			stop := s.recordLongAttempt(ctx, log, id, i)
			res, err = s.runStep(ctx, name, StepInput{
				Workflow: st.info, StepName: name, StepIndex: i, At: start, Records: records,
				Params: input.Params, Metadata: wf.metadata(s.cfg.Runtime), Effects: &stepEffects,
			})
			stop()
		}
		end = s.cfg.Now()
		if err != nil && fault.IsRetryable(err) {
			if wf.RetryStep(started, s.cfg.MaxStepAttempts) {
				wf.Pause(i, records)
				commit()
				log.WarnContext(ctx, "step failed transiently; progress checkpointed for the retried batch",
					"step", name, "stepIndex", i, "attempt", wf.Attempts, "maxAttempts", s.cfg.MaxStepAttempts, "error", err)
				return fmt.Errorf("workflow %s step %s: %w", id, name, err)
			}
			err = fault.Permanent(CodeRetriesExhausted, "step %s failed transiently %d times in a row; last error: %v", name, wf.Attempts, err)
		}
		if err != nil {
			code, message, stack := stepFailure(name, i, id, err)
			wf.Fail(i, end, events.WorkflowError{Code: code, Message: message, Stack: stack}, records)
			if err := emit(events.WorkflowFailedPayload{WorkflowID: id, Name: wf.Name, FailedAt: events.At(end), FailedStep: name,
				FailedStepIndex: i, Error: *wf.Error}, endEventID(id, events.WorkflowFailed), end); err != nil {
				return err
			}
			if wf.WebhookEventID != "" {
				st.Webhook = &store.WebhookOutcome{EventID: wf.WebhookEventID, RunID: wf.ID, Status: status.WebhookFailed,
					Error: fmt.Sprintf("workflow %s failed in step %s: %s", id, name, message)}
			}
			commit()
			log.InfoContext(ctx, "workflow failed", "step", name, "stepIndex", i, "code", code, "error", message)
			return nil
		}
		duration := end.Sub(start).Milliseconds()
		result, err := json.Marshal(res.Result)
		if err != nil {
			return fmt.Errorf("workflow %s step %s: encode result: %w", id, name, err)
		}
		if err := emit(events.WorkflowStepCompletedPayload{WorkflowID: id, StepName: name, StepIndex: i,
			CompletedAt: events.At(end), Duration: duration, Result: res.Result}, stepEventID(id, events.WorkflowStepCompleted, i), end); err != nil {
			return err
		}
		wf.CompleteStep(StepDone{Name: name, Index: i, CompletedAt: end, Duration: duration, Result: result})
		effects.add(&stepEffects)
		records = res.Records
		done++
	}

	total := len(input.Records)
	duration := wf.Complete(end)
	if err := emit(events.WorkflowCompletedPayload{WorkflowID: id, Name: wf.Name, CompletedAt: events.At(end), Duration: duration,
		StepsCompleted: len(wf.Done), Summary: events.WorkflowSummary{
			TotalRecords: total, SuccessfulRecords: len(records), FailedRecords: max(total-len(records), 0),
		}}, endEventID(id, events.WorkflowCompleted), end); err != nil {
		return err
	}
	if wf.WebhookEventID != "" {
		st.Webhook = &store.WebhookOutcome{EventID: wf.WebhookEventID, RunID: wf.ID, Status: status.WebhookCompleted}
	}
	commit()
	log.InfoContext(ctx, "workflow completed", "durationMs", duration, "steps", len(steps), "records", len(records))
	return nil
}

// rederive computes the records step first reads for a rerun that starts
// there without them: the steps before it run again in memory on the
// input's records, their writes and results discarded (their stored
// results stay as they are; a step only asks for writes, see StepFunc).
// A step that fails now fails the run at step first, saying which.
func (s workflows) rederive(ctx context.Context, st *state, input Input, first int) ([]json.RawMessage, error) {
	records := input.Records
	for i, name := range st.wf.Steps[:first] {
		out, err := s.runStep(ctx, name, StepInput{
			Workflow: st.info, StepName: name, StepIndex: i, At: s.cfg.Now(), Records: records,
			Params: input.Params, Metadata: st.wf.metadata(s.cfg.Runtime), Effects: &Effects{},
		})
		if err != nil {
			return nil, fault.Permanent(CodeRederive, "the records step %s reads could not be computed again: step %s (index %d): %v",
				st.wf.Steps[first], name, i, err)
		}
		records = out.Records
	}
	return records, nil
}

// runStep calls a step, turning a panic, an unknown step and a result that
// would poison the batch's writes into step failures, and classifying its
// error (see classify).
func (s workflows) runStep(ctx context.Context, name string, in StepInput) (out StepOutput, err error) {
	fn, ok := s.cfg.Steps.Lookup(name)
	if !ok {
		return out, fault.Permanent(CodeUnknownStep, "unknown step %q (registered: %v)", name, s.cfg.Steps.Names())
	}
	defer func() {
		if r := recover(); r != nil {
			out, err = StepOutput{}, &fault.Error{Code: CodeStepPanic, Message: fmt.Sprintf("step %s panicked: %v", name, r), Stack: string(debug.Stack())}
		}
	}()
	out, err = fn(ctx, in)
	if err != nil {
		return out, classify(err)
	}
	return out, checkOutput(name, out, in.Effects)
}

// checkOutput rejects what a (custom) step may return that the batch's
// events or bulk writes would refuse, so a bad step fails its workflow
// instead of failing every delivery of the batch. The writes in its Effects are
// store documents, checked where they meet the store (persist.go's
// checkWrites).
func checkOutput(name string, out StepOutput, eff *Effects) error {
	r := out.Result
	if r.RecordsProcessed < 0 || r.ValidRecords < 0 || r.InvalidRecords < 0 {
		return fault.Permanent(CodeInvalidResult, "step %s returned negative record counters", name)
	}
	for i, rec := range out.Records {
		if !isObject(rec) || !json.Valid(rec) {
			return fault.Permanent(CodeInvalidResult, "step %s returned record %d that is not a JSON object", name, i)
		}
	}
	if err := eff.checkWrites(name); err != nil {
		return err
	}
	for _, e := range eff.events {
		raw, err := json.Marshal(e)
		if err == nil {
			err = events.Validate(raw)
		}
		if err != nil {
			return fault.Permanent(CodeInvalidResult, "step %s asked to emit an invalid event: %w", name, err)
		}
	}
	return nil
}

// classify gives a step's error the workflow domain's defaults: the
// invocation's context ending is transient (not the step's fault), and an
// error the step did not classify fails the workflow.
func classify(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return fault.Transient(err)
	case !fault.Classified(err):
		return &fault.Error{Message: err.Error(), Err: err}
	}
	return err
}

// recordLongAttempt records the attempt of step i (store.RecordStepAttempt)
// once the step has run for half the deadline margin, and returns the
// function that stops the clock when the step returns, waiting for a
// record under way. A step can only be killed by the function's timeout
// after running longer than the margin (no step starts inside it), so
// every attempt the timeout kills is recorded, while the steps that end
// sooner, nearly all of them, cost no store command: recording each step
// before it ran cost two commands a step, six a three-step workflow, and
// made a 1,000-workflow batch 6,000 sequential commands.
func (s workflows) recordLongAttempt(ctx context.Context, log *slog.Logger, id string, i int) (stop func()) {
	done := make(chan struct{})
	t := time.AfterFunc(s.cfg.DeadlineMargin/2, func() {
		defer close(done)
		if _, err := s.cfg.Store.RecordStepAttempt(ctx, id, i); err != nil {
			log.WarnContext(ctx, "could not record a long step's attempt", "stepIndex", i, "error", err)
		}
	})
	return func() {
		if !t.Stop() {
			<-done
		}
	}
}
