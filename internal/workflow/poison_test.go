package workflow_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/stream/deadletterstatus"
	"github.com/streamops/streamops/internal/stream/streamtest"
	"github.com/streamops/streamops/internal/workflow/workflowstatus"
)

// TestEveryPoisonKindIsDeadLetteredAndTheRecordBehindItCompletes is the
// poison class on the workflow-processor: each record that would fail again
// on every redelivery is dead-lettered with its reason, the batch succeeds,
// and a valid record behind it on the same key (so the same partition)
// completes.
func TestEveryPoisonKindIsDeadLetteredAndTheRecordBehindItCompletes(t *testing.T) {
	for _, kind := range streamtest.Poisons {
		t.Run(kind.Name, func(t *testing.T) {
			h := newHarness(t, nil)
			g := streamtest.NewGen(7)
			wf := events.WorkflowCreatedPayload{WorkflowID: events.WorkflowIDPrefix + g.UUID(), Name: "After poison",
				Steps: []string{"validate"}, Priority: events.PriorityLow, CreatedAt: g.Now(),
				Input: mustJSON(map[string]any{"records": []map[string]any{{"a": 1}}})}
			good := g.Record(t, g.Envelope(t, wf, apiMetadata))
			poison := kind.Before(t, g, good, events.WorkflowCreated, func(record json.RawMessage) events.Envelope {
				bad := wf
				if record != nil {
					bad.Input = json.RawMessage(`{"records":[` + string(record) + `]}`)
				}
				return g.Envelope(t, bad, apiMetadata)
			})
			ev := streamtest.Batch(poison, good)
			h.submitted(t, streamtest.Batch(good))

			require.NoError(t, h.Deliver(t, ev), "a poison record never fails its batch")
			assert.Equal(t, workflowstatus.Completed, h.workflow(t, wf.WorkflowID).Status, "the record behind it on the same key completes")
			stored := h.DeadLetters(t, store.DeadLetterQuery{Status: deadletterstatus.Open})
			require.Len(t, stored, 1, "the poison record is a visible dead letter")
			assert.NotEmpty(t, stored[0].Reason)
			assert.NotEmpty(t, stored[0].Error)
		})
	}
}
