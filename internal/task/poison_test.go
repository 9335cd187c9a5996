package task_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
	for _, kind := range streamtest.Poisons {
		t.Run(kind.Name, func(t *testing.T) {
			h := newHarness(t, emailOnly(&flakyMailer{}))
			g := streamtest.NewGen(9)
			p := events.TaskCreatedPayload{TaskID: events.TaskIDPrefix + g.UUID(), Type: events.TaskEmailNotification,
				Data: []byte(`{"recipient":"ops@example.com","template":"welcome_email"}`), MaxRetries: 3, CreatedAt: g.Now()}
			good := g.Record(t, g.Envelope(t, p, apiMetadata))
			poison := kind.Before(t, g, good, events.TaskCreated, func(data json.RawMessage) events.Envelope {
				bad := p
				if data != nil {
					bad.Data = data
				}
				return g.Envelope(t, bad, apiMetadata)
			})
			h.submitted(t, streamtest.Batch(good))

			require.NoError(t, h.Deliver(t, streamtest.Batch(poison, good)), "a poison record never fails its batch")
			assert.Equal(t, taskstatus.Completed, h.task(t, p.TaskID).Status, "the task behind it on the same key completes")
			stored := h.DeadLetters(t, store.DeadLetterQuery{Status: deadletterstatus.Open})
			require.Len(t, stored, 1, "the poison record is a visible dead letter")
			assert.NotEmpty(t, stored[0].Reason)
			assert.NotEmpty(t, stored[0].Error)
		})
	}
}
