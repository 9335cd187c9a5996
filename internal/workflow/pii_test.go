package workflow_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/events/eventstest"
	"github.com/streamops/streamops/internal/fault"
	"github.com/streamops/streamops/internal/status"
	"github.com/streamops/streamops/internal/stream/streamtest"
	"github.com/streamops/streamops/internal/testenv"
	"github.com/streamops/streamops/internal/workflow"
)

// TestAStepsErrorIsKeptWithoutThePersonalDataItQuotes: a step whose error
// quotes an email, a phone number, a card number and an IBAN (the record
// it refused, what a partner answered) fails its workflow; none of them is
// then in clear in the workflow's stored error or its workflow.failed
// event (message and stack), which keep the rest of the error.
func TestAStepsErrorIsKeptWithoutThePersonalDataItQuotes(t *testing.T) {
	said := "record 0 refused: " + testenv.PersonalText
	tests := []struct {
		name string
		err  error
	}{
		{"an untyped error", errors.New(said)},
		{"a classified error", fault.Permanent(workflow.CodeTransform, "transform: %w", errors.New(said))},
		{"a classified error with a stack", &fault.Error{Code: workflow.CodeTransform, Message: "transform failed",
			Stack: "panic: " + said + "\n\tgoroutine 7"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			steps := wrapSteps(func(string, workflow.StepFunc) workflow.StepFunc {
				return func(context.Context, workflow.StepInput) (workflow.StepOutput, error) {
					return workflow.StepOutput{}, tc.err
				}
			}, "transform")
			h := newHarness(t, steps)
			g := streamtest.NewGen(41)
			wf := events.WorkflowCreatedPayload{WorkflowID: events.NewWorkflowID(), Name: "Refused",
				Steps: []string{"validate", "transform", "store"}, Priority: events.PriorityLow, CreatedAt: g.Now(),
				Input: eventstest.MustJSON(map[string]any{"records": []map[string]any{{"a": 1}}})}
			ev := streamtest.Batch(g.Record(t, g.Envelope(t, wf, streamtest.APIMetadata)))
			h.submitted(t, ev)
			require.NoError(t, h.Deliver(t, ev))

			cp := h.workflow(t, wf.WorkflowID)
			require.Equal(t, status.WorkflowFailed, cp.Status)
			require.NotNil(t, cp.Error)
			assert.Contains(t, cp.Error.Message+cp.Error.Stack, "[redacted:email]", "the error is kept, scrubbed")
			got := h.Lifecycle(t, wf.WorkflowID)
			require.Equal(t, events.WorkflowFailed, got[len(got)-1].EventType)
			testenv.AssertNoneInClear(t, map[string]any{"the workflow": cp, "its events": got})
		})
	}
}
