package task_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/events/eventstest"
	"github.com/streamops/streamops/internal/status"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/stream"
	"github.com/streamops/streamops/internal/stream/streamtest"
	"github.com/streamops/streamops/internal/task"
)

// TestSeed003ExamplesOnTheTasksTopicAreNeverDeadLettered: every event
// example of seed 003 that belongs on topic tasks, consumed by the
// task-processor as it arrives from its producer, is run (task.created:
// the welcome email is sent) or skipped (the lifecycle events), never
// dead-lettered.
func TestSeed003ExamplesOnTheTasksTopicAreNeverDeadLettered(t *testing.T) {
	examples := streamtest.SeedExamplesOf(t, events.TopicTasks)
	require.Len(t, examples, 5)
	for _, ex := range examples {
		t.Run(ex.Name, func(t *testing.T) {
			h := newHarness(t, nil)
			rec := ex.Record(t, streamtest.NewGen(41))

			require.NoError(t, h.Deliver(t, streamtest.Batch(rec)))
			assert.Empty(t, h.DeadLetters(t, store.DeadLetterQuery{}), "seed 003's own example is no poison record")
			if ex.Name == string(events.TaskCreated) {
				assert.Equal(t, status.TaskCompleted, h.task(t, "task-x1y2z3a4-b5c6-7890-defg-hi1234567890").Status)
			}
		})
	}
}

// TestATaskTypeWithoutAnExecutorFailsTheTask: a task.created whose type
// StreamOps has no executor for (a newer producer's, or one of seed 003's
// this deployment does not run) is the task's failure, visible as
// task.dead_letter with UNKNOWN_TASK_TYPE after one attempt and no retry,
// not a schema-invalid record: its dead letter says processing-failed and
// carries the task, like every task that failed for good.
func TestATaskTypeWithoutAnExecutorFailsTheTask(t *testing.T) {
	for _, typ := range []string{eventstest.Unlisted, string(events.TaskDataExport)} {
		t.Run(typ, func(t *testing.T) {
			h := newHarness(t, nil) // email_notification only
			value, err := json.Marshal(map[string]any{
				"eventType": "task.created", "eventId": "evt-partner-7", "timestamp": "2026-01-04T01:09:00.000Z",
				"payload": map[string]any{"taskId": "task-partner-7", "type": typ, "data": map[string]any{"to": "+15550100"},
					"retryCount": 0, "maxRetries": 3, "createdAt": "2026-01-04T01:09:00.000Z", "channel": "sms"},
			})
			require.NoError(t, err)
			rec := streamtest.NewGen(42).Place(&kgo.Record{Topic: events.TopicTasks, Key: []byte("task-partner-7"), Value: value}, 0)

			require.NoError(t, h.Deliver(t, streamtest.Batch(rec)))

			got := h.task(t, "task-partner-7")
			assert.Equal(t, status.TaskDeadLetter, got.Status)
			assert.Equal(t, 0, got.RetryCount, "not retried")
			lifecycle := h.Lifecycle(t, "task-partner-7")
			assert.Empty(t, ofType(lifecycle, events.TaskFailed), "no retry scheduled")
			dead := ofType(lifecycle, events.TaskDeadLetter)
			require.Len(t, dead, 1)
			p := streamtest.Payload[events.TaskDeadLetterPayload](t, dead[0])
			assert.Equal(t, task.CodeUnknownType, p.FinalError.Code)
			assert.JSONEq(t, string(value), `{"eventType":"task.created","eventId":"evt-partner-7","timestamp":"2026-01-04T01:09:00.000Z","payload":`+string(p.OriginalEvent.Payload)+`}`,
				"the original payload, its added field too, travels in the dead letter")

			stored := h.DeadLetters(t, store.DeadLetterQuery{})
			require.Len(t, stored, 1)
			assert.Equal(t, string(stream.ReasonProcessingFailed), stored[0].Reason, "the task failed; the record was not poison")
		})
	}
}

// TestATaskCreatedFromAnotherProducerIsStoredInTheHistory: a task.created
// put straight on the topic (docs/operations.md, "Kafka with kcat"; its task has no
// projection: StreamOps stores a task before publishing its event) is
// stored by the processor in the events collection with every field it
// carries, published already, before the lifecycle it caused; a payload
// field named as one of the stored document's own fields is kept too.
func TestATaskCreatedFromAnotherProducerIsStoredInTheHistory(t *testing.T) {
	tests := []struct {
		name   string
		change func(doc map[string]any)
	}{
		{"added envelope, metadata and payload fields", func(d map[string]any) {
			d["traceparent"] = "00-abc-01"
			d["metadata"].(map[string]any)["tenant"] = map[string]any{"id": "acme", "tier": 2}
			d["payload"].(map[string]any)["channel"] = "email"
		}},
		{"payload fields named as the document's own", func(d map[string]any) {
			p := d["payload"].(map[string]any)
			p["timestamp"], p["event_type"], p["metadata"] = "yesterday", "other", map[string]any{"owner": "ops"}
		}},
		{"no metadata", func(d map[string]any) { delete(d, "metadata") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := map[string]any{
				"eventType": "task.created", "eventId": "evt-kcat-1", "timestamp": "2026-01-04T01:09:00.000Z", "schemaVersion": "1.0.0",
				"payload": map[string]any{"taskId": "task-kcat-1", "type": "email_notification",
					"data":       map[string]any{"recipient": "ops@example.com", "subject": "hi", "body": "from kcat"},
					"retryCount": 0, "maxRetries": 3, "createdAt": "2026-01-04T01:09:00.000Z"},
				"metadata": map[string]any{"source": "kcat"},
			}
			tt.change(doc)
			value, err := json.Marshal(doc)
			require.NoError(t, err)
			h := newHarness(t, nil)
			rec := streamtest.NewGen(43).Place(&kgo.Record{Topic: events.TopicTasks, Key: []byte("task-kcat-1"), Value: value}, 0)

			require.NoError(t, h.Deliver(t, streamtest.Batch(rec)))
			assert.Equal(t, status.TaskCompleted, h.task(t, "task-kcat-1").Status)
			h.RequireConsumed(t, value)
			var types []string
			for _, d := range h.History(t, "task-kcat-1") {
				types = append(types, d.EventType)
			}
			assert.Equal(t, []string{"task.created", "task.processing", "task.completed"}, types)
		})
	}
}

// TestStoringConsumedTaskEventsCostsOneInsertPerBatch: the history write
// of consumed events is one insert per batch that has any, and none for
// the task.created StreamOps produced.
func TestStoringConsumedTaskEventsCostsOneInsertPerBatch(t *testing.T) {
	recs, tasks := benchBatch(t, 9, 20)
	streamtest.RequireOneInsertForConsumed(t, events.TaskCreated, recs, func(own bool) *streamtest.Harness {
		h := newHarness(t, nil)
		if own {
			_, err := h.Env.Store.InsertTasks(context.Background(), tasks...)
			require.NoError(t, err)
		}
		return h.Harness
	})
}
