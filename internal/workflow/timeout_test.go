package workflow_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/events/eventstest"
	"github.com/streamops/streamops/internal/fault"
	"github.com/streamops/streamops/internal/status"
	"github.com/streamops/streamops/internal/stream"
	"github.com/streamops/streamops/internal/stream/streamtest"
	"github.com/streamops/streamops/internal/workflow"
)

// A step that outlives the function's timeout is killed before anything
// is checkpointed; its attempts are recorded before it runs, so after
// MaxStepAttempts such invocations the workflow ends in workflow.failed
// (STEP_RETRIES_EXHAUSTED) like any other exhausted step, and a step
// earlier in the same run is not blamed for it.
func TestAStepThatKeepsOutlivingTheTimeoutFailsItsWorkflow(t *testing.T) {
	const maxAttempts = 3
	var calls counts
	steps := wrapSteps(func(name string, builtin workflow.StepFunc) workflow.StepFunc {
		return func(ctx context.Context, in workflow.StepInput) (workflow.StepOutput, error) {
			calls.add(name, 1)
			if name == "transform" {
				<-ctx.Done() // runs until the invocation's deadline kills it
				return workflow.StepOutput{}, fault.Transient(ctx.Err())
			}
			return builtin(ctx, in)
		}
	}, "validate", "transform")
	h := newHarness(t, steps)
	svc, err := workflow.New(workflow.Config{Store: h.Env.Store, Steps: steps, MaxStepAttempts: maxAttempts,
		Runtime: stream.Runtime{Emitter: h.Env.Emitter, DeadlineMargin: time.Millisecond, Clock: ticking(), Logger: h.Env.Logger}})
	require.NoError(t, err)
	h.Use(t, svc)
	g := streamtest.NewGen(41)
	wf := events.WorkflowCreatedPayload{WorkflowID: events.WorkflowIDPrefix + g.UUID(), Name: "Slow",
		Steps: []string{"validate", "transform", "store"}, Priority: events.PriorityLow, CreatedAt: g.Now(),
		Input: eventstest.MustJSON(map[string]any{"records": []map[string]any{{"a": 1}}})}
	ev := streamtest.Batch(g.Record(t, g.Envelope(t, wf, streamtest.APIMetadata)))
	h.submitted(t, ev)

	// An invocation whose deadline passes while transform runs: nothing
	// it did is checkpointed (the store refuses writes once the deadline
	// has passed), as when Lambda kills the function.
	// A second: room for validate and the attempt's record on a loaded
	// machine (the race run, CI's two cores) before transform starts.
	killed := func() error { return h.DeliverWithin(t, time.Second, ev) }
	for attempt := 1; attempt <= maxAttempts; attempt++ {
		require.Error(t, killed(), "invocation %d times out", attempt)
		cp := h.workflow(t, wf.WorkflowID)
		assert.Contains(t, []string{status.WorkflowPending, status.WorkflowProcessing}, cp.Status)
		assert.Zero(t, cp.StepAttempts, "no checkpoint counted the attempt")
		assert.Equal(t, 1, cp.AttemptStepIndex)
		assert.Equal(t, attempt, cp.StepAttemptsStarted, "the attempt recorded before the step ran")
	}
	require.NoError(t, h.Deliver(t, ev), "the next delivery ends the workflow instead of running the step again")

	assert.Equal(t, map[string]int{"transform": maxAttempts, "validate": maxAttempts + 1}, calls.all(),
		"transform is not started beyond the limit; validate ran in every invocation and is not blamed")
	failed := h.workflow(t, wf.WorkflowID)
	require.Equal(t, status.WorkflowFailed, failed.Status)
	require.NotNil(t, failed.Error)
	assert.Equal(t, workflow.CodeRetriesExhausted, failed.Error.Code)
	got := h.Lifecycle(t, wf.WorkflowID)
	require.NotEmpty(t, got)
	last := got[len(got)-1]
	require.Equal(t, events.WorkflowFailed, last.EventType)
	fp := streamtest.Payload[events.WorkflowFailedPayload](t, last)
	assert.Equal(t, "transform", fp.FailedStep)
	assert.Equal(t, 1, fp.FailedStepIndex)
}
