package task_test

import (
	"testing"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/stream/streamtest"
)

// fixtures are the task-processor's own MSK batches; tasks-batch comes from
// package stream.
var fixtures = streamtest.Fixtures{
	// One email_notification task, first attempt, seed 003's example data.
	"tasks-email.json": streamtest.Submitted(31, func(_ testing.TB, g *streamtest.Gen) events.Payload {
		return events.TaskCreatedPayload{
			TaskID: events.TaskIDPrefix + g.UUID(), Type: events.TaskEmailNotification,
			Data:       []byte(`{"recipient":"user@example.com","subject":"Welcome to StreamOps","template":"welcome_email"}`),
			RetryCount: 0, MaxRetries: 3, CreatedAt: g.Now(),
		}
	}),
}

func TestFixturesAreReproducible(t *testing.T) { streamtest.CheckAll(t, fixtures) }
