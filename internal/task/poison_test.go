package task_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/stream/deadletterstatus"
	"github.com/streamops/streamops/internal/stream/streamtest"
	"github.com/streamops/streamops/internal/task/taskstatus"
)

// TestEveryPoisonKindIsDeadLetteredAndTheTaskBehindItCompletes is the
// poison class on the task-processor (the workflow-processor has its twin):
// each record that would fail again on every redelivery is dead-lettered,
// the batch succeeds, and a valid task.created behind it on the same key
// completes.
func TestEveryPoisonKindIsDeadLetteredAndTheTaskBehindItCompletes(t *testing.T) {
	tests := []struct{ name, value, topic string }{
		{"not JSON", `{"eventType":`, ""},
		{"payload a JSON array", `{"eventType":"task.created","eventId":"evt-00000000-0000-4000-8000-000000000001","timestamp":"2026-01-04T01:09:27.123Z","schemaVersion":"1.0.0","payload":[]}`, ""},
		{"unknown event type on tasks", `{"eventType":"task.teleported","eventId":"evt-00000000-0000-4000-8000-000000000002","timestamp":"2026-01-04T01:09:27.123Z","schemaVersion":"1.0.0","payload":{}}`, ""},
		{"a key the store cannot encode", "", ""},
		{"a number no type holds exactly", "number", ""},
		{"a topic the processor does not own", "", "payments"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, emailOnly(&flakyMailer{}))
			g := streamtest.NewGen(9)
			p := events.TaskCreatedPayload{TaskID: events.TaskIDPrefix + g.UUID(), Type: events.TaskEmailNotification,
				Data: []byte(`{"recipient":"ops@example.com","template":"welcome_email"}`), MaxRetries: 3, CreatedAt: g.Now()}
			good := g.Record(t, g.Envelope(t, p, apiMetadata))
			poison := &kgo.Record{Topic: events.TopicTasks, Key: good.Key, Value: []byte(tc.value)}
			switch {
			case tc.topic != "":
				poison = g.Record(t, g.Envelope(t, p, apiMetadata))
				poison.Topic = tc.topic
			case tc.value == "number":
				bad := p
				bad.Data = []byte(`{"amount":1e7000}`)
				poison = g.Record(t, g.Envelope(t, bad, apiMetadata))
			case tc.value == "":
				bad := p
				bad.Data = []byte(`{"recipient":"ops@example.com","k\u0000":1}`)
				poison = g.Record(t, g.Envelope(t, bad, apiMetadata))
			}
			poison.Partition, poison.Offset = good.Partition, good.Offset
			good.Offset++
			h.submitted(t, streamtest.Batch(good))

			require.NoError(t, h.deliver(t, streamtest.Batch(poison, good)), "a poison record never fails its batch")
			assert.Equal(t, taskstatus.Completed, h.task(t, p.TaskID).Status, "the task behind it on the same key completes")
			stored, _, err := h.env.Store.ListDeadLetters(t.Context(), store.DeadLetterQuery{Status: deadletterstatus.Open})
			require.NoError(t, err)
			require.Len(t, stored, 1, "the poison record is a visible dead letter")
			assert.NotEmpty(t, stored[0].Reason)
		})
	}
}
