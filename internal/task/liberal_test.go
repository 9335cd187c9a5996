package task_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/stream"
	"github.com/streamops/streamops/internal/stream/streamtest"
	"github.com/streamops/streamops/internal/task"
	"github.com/streamops/streamops/internal/task/taskstatus"
)

// TestSeed003ExamplesOnTheTasksTopicAreNeverDeadLettered: every event
// example of seed 003 that belongs on topic tasks, consumed by the
// task-processor as it arrives from its producer, is run (task.created:
// the welcome email is sent) or skipped (the lifecycle events), never
// dead-lettered.
func TestSeed003ExamplesOnTheTasksTopicAreNeverDeadLettered(t *testing.T) {
	examples := streamtest.SeedExamplesOf(events.TopicTasks)
	require.Len(t, examples, 5)
	for _, ex := range examples {
		t.Run(ex.Name, func(t *testing.T) {
			h := newHarness(t, nil)
			rec := ex.Record(t, streamtest.NewGen(41))

			require.NoError(t, h.Deliver(t, streamtest.Batch(rec)))
			assert.Empty(t, h.DeadLetters(t, store.DeadLetterQuery{}), "seed 003's own example is no poison record")
			if ex.Name == string(events.TaskCreated) {
				assert.Equal(t, taskstatus.Completed, h.task(t, "task-x1y2z3a4-b5c6-7890-defg-hi1234567890").Status)
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
	for _, typ := range []string{"sms_notification", string(events.TaskDataExport)} {
		t.Run(typ, func(t *testing.T) {
			h := newHarness(t, nil) // email_notification only
			value, err := json.Marshal(map[string]any{
				"eventType": "task.created", "eventId": "evt-partner-7", "timestamp": "2026-01-04T01:10:00.000Z",
				"payload": map[string]any{"taskId": "task-partner-7", "type": typ, "data": map[string]any{"to": "+15550100"},
					"retryCount": 0, "maxRetries": 3, "createdAt": "2026-01-04T01:10:00.000Z", "channel": "sms"},
			})
			require.NoError(t, err)
			rec := streamtest.NewGen(42).Place(&kgo.Record{Topic: events.TopicTasks, Key: []byte("task-partner-7"), Value: value}, 0)

			require.NoError(t, h.Deliver(t, streamtest.Batch(rec)))

			got := h.task(t, "task-partner-7")
			assert.Equal(t, taskstatus.DeadLetter, got.Status)
			assert.Equal(t, 0, got.RetryCount, "not retried")
			lifecycle := h.Lifecycle(t, "task-partner-7")
			assert.Empty(t, ofType(lifecycle, events.TaskFailed), "no retry scheduled")
			dead := ofType(lifecycle, events.TaskDeadLetter)
			require.Len(t, dead, 1)
			p := streamtest.Payload[events.TaskDeadLetterPayload](t, dead[0])
			assert.Equal(t, task.CodeUnknownType, p.FinalError.Code)
			assert.JSONEq(t, string(value), `{"eventType":"task.created","eventId":"evt-partner-7","timestamp":"2026-01-04T01:10:00.000Z","payload":`+string(p.OriginalEvent.Payload)+`}`,
				"the original payload, its added field too, travels in the dead letter")

			stored := h.DeadLetters(t, store.DeadLetterQuery{})
			require.Len(t, stored, 1)
			assert.Equal(t, string(stream.ReasonProcessingFailed), stored[0].Reason, "the task failed; the record was not poison")
		})
	}
}
