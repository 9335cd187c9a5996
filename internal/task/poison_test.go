package task_test

import (
	"encoding/json"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/status"
	"github.com/streamops/streamops/internal/stream/streamtest"
)

// TestEveryPoisonKindIsDeadLetteredAndTheTaskBehindItCompletes is the
// poison class on the task-processor (streamtest.RunPoisons runs it on the
// workflow-processor too): each record that would fail again on every
// redelivery is dead-lettered, the batch succeeds, and a valid task.created
// behind it on the same key completes.
func TestEveryPoisonKindIsDeadLetteredAndTheTaskBehindItCompletes(t *testing.T) {
	streamtest.RunPoisons(t, 9, func(t *testing.T, g *streamtest.Gen) streamtest.PoisonCase {
		h := newHarness(t, emailOnly(&flakyMailer{}))
		p := events.TaskCreatedPayload{TaskID: events.TaskIDPrefix + g.UUID(), Type: events.TaskEmailNotification,
			Data: []byte(`{"recipient":"ops@example.com","template":"welcome_email"}`), MaxRetries: 3, CreatedAt: g.Now()}
		return streamtest.PoisonCase{
			Harness: h.Harness,
			Valid: func(data json.RawMessage) events.Payload {
				bad := p
				if data != nil {
					bad.Data = data
				}
				return bad
			},
			Submit:    func(good *kgo.Record) { h.submitted(t, streamtest.Batch(good)) },
			Status:    func() string { return h.task(t, p.TaskID).Status },
			Completed: status.TaskCompleted,
		}
	})
}
