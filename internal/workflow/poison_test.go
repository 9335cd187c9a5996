package workflow_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"

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
	tests := []struct{ name, value, topic string }{
		{"not JSON", `{"eventType":`, ""},
		{"payload a JSON array", `{"eventType":"workflow.created","eventId":"evt-00000000-0000-4000-8000-000000000001","timestamp":"2026-01-04T01:09:27.123Z","schemaVersion":"1.0.0","payload":[]}`, ""},
		{"unknown event type", `{"eventType":"workflow.teleported","eventId":"evt-00000000-0000-4000-8000-000000000002","timestamp":"2026-01-04T01:09:27.123Z","schemaVersion":"1.0.0","payload":{}}`, ""},
		{"a key the store cannot encode", "", ""},
		{"a number no type holds exactly", "number", ""},
		{"a topic the processor does not own", "", "payments"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, nil)
			g := streamtest.NewGen(7)
			wf := events.WorkflowCreatedPayload{WorkflowID: events.WorkflowIDPrefix + g.UUID(), Name: "After poison",
				Steps: []string{"validate"}, Priority: events.PriorityLow, CreatedAt: g.Now(),
				Input: mustJSON(map[string]any{"records": []map[string]any{{"a": 1}}})}
			good := g.Record(t, g.Envelope(t, wf, apiMetadata))
			poison := &kgo.Record{Topic: events.TopicWorkflows, Key: good.Key, Value: []byte(tc.value)}
			switch {
			case tc.topic != "":
				poison = g.Record(t, g.Envelope(t, wf, apiMetadata))
				poison.Topic = tc.topic
			case tc.value == "number":
				bad := wf
				bad.Input = []byte(`{"amount":1e7000}`)
				poison = g.Record(t, g.Envelope(t, bad, apiMetadata))
			case tc.value == "":
				bad := wf
				bad.Input = []byte(`{"records":[{"k\u0000":1}]}`)
				poison = g.Record(t, g.Envelope(t, bad, apiMetadata))
			}
			poison.Partition, poison.Offset = good.Partition, good.Offset
			good.Offset++
			ev := streamtest.Batch(poison, good)
			h.submitted(t, streamtest.Batch(good))

			require.NoError(t, h.deliver(t, ev), "a poison record never fails its batch")
			assert.Equal(t, workflowstatus.Completed, h.workflow(t, wf.WorkflowID).Status, "the record behind it on the same key completes")
			stored, _, err := h.env.Store.ListDeadLetters(t.Context(), store.DeadLetterQuery{Status: deadletterstatus.Open})
			require.NoError(t, err)
			require.Len(t, stored, 1, "the poison record is a visible dead letter")
			assert.NotEmpty(t, stored[0].Reason)
			assert.NotEmpty(t, stored[0].Error)
		})
	}
}
