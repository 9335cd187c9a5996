package task_test

import (
	"testing"

	lambdaevents "github.com/aws/aws-lambda-go/events"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/stream/streamtest"
)

const fixtureDir = streamtest.Dir

var apiMetadata = streamtest.APIMetadata

// fixtures are the task-processor's own MSK batches; tasks-batch comes from
// package stream.
var fixtures = map[string]func(t *testing.T) lambdaevents.KafkaEvent{
	// One email_notification task, first attempt, seed 003's example data.
	"tasks-email.json": func(t *testing.T) lambdaevents.KafkaEvent {
		g := streamtest.NewGen(31)
		return streamtest.Batch(g.Record(t, g.Envelope(t, events.TaskCreatedPayload{
			TaskID: events.TaskIDPrefix + g.UUID(), Type: events.TaskEmailNotification,
			Data:       []byte(`{"recipient":"user@example.com","subject":"Welcome to StreamOps","template":"welcome_email"}`),
			RetryCount: 0, MaxRetries: 3, CreatedAt: g.Now(),
		}, apiMetadata)))
	},
}

func TestFixturesAreReproducible(t *testing.T) { streamtest.CheckAll(t, fixtureDir, fixtures) }
