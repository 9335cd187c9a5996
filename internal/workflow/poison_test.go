package workflow_test

import (
	"encoding/json"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/events/eventstest"
	"github.com/streamops/streamops/internal/status"
	"github.com/streamops/streamops/internal/stream/streamtest"
)

// TestEveryPoisonKindIsDeadLetteredAndTheRecordBehindItCompletes is the
// poison class on the workflow-processor (streamtest.RunPoisons runs it on
// the task-processor too): each record that would fail again on every
// redelivery is dead-lettered with its reason, the batch succeeds, and a
// valid record behind it on the same key (so the same partition)
// completes.
func TestEveryPoisonKindIsDeadLetteredAndTheRecordBehindItCompletes(t *testing.T) {
	streamtest.RunPoisons(t, 7, func(t *testing.T, g *streamtest.Gen) streamtest.PoisonCase {
		h := newHarness(t, nil)
		wf := events.WorkflowCreatedPayload{WorkflowID: events.WorkflowIDPrefix + g.UUID(), Name: "After poison",
			Steps: []string{"validate"}, Priority: events.PriorityLow, CreatedAt: g.Now(),
			Input: eventstest.MustJSON(map[string]any{"records": []map[string]any{{"a": 1}}})}
		return streamtest.PoisonCase{
			Harness: h.Harness,
			Valid: func(record json.RawMessage) events.Payload {
				bad := wf
				if record != nil {
					bad.Input = json.RawMessage(`{"records":[` + string(record) + `]}`)
				}
				return bad
			},
			Submit:    func(good *kgo.Record) { h.submitted(t, streamtest.Batch(good)) },
			Status:    func() string { return h.workflow(t, wf.WorkflowID).Status },
			Completed: status.WorkflowCompleted,
		}
	})
}
