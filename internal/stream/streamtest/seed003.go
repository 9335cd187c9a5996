package streamtest

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamops/streamops/events"
)

// SeedExample is one event example of seed 003 as a record of its topic,
// keyed by its aggregate id as seed 003's producers key it.
type SeedExample struct {
	// Name says where in seed 003 the example is.
	Name string
	// Topic is the topic its event type belongs on.
	Topic string
	// Value is the example's JSON as the seed prints it.
	Value string
}

// Seed003 are seed 003's event examples: every one of "Workflow Events",
// "Task Events", the "Example Kafka Message" and the "Publish Test Event",
// verbatim but for two comments JSON cannot hold: the Kafka message's
// payload `{ /* ... */ }` is the workflow.created example's payload, and
// task.dead_letter's originalEvent payload `{ /* original task data */ }`
// is the task.created example's.
var Seed003 = []SeedExample{
	{"workflow.created", events.TopicWorkflows, `{
  "eventType": "workflow.created",
  "eventId": "evt-a1b2c3d4-e5f6-7890-abcd-ef1234567890",
  "timestamp": "2026-01-04T01:09:27.123Z",
  "payload": {
    "workflowId": "wf-a1b2c3d4-e5f6-7890-abcd-ef1234567890",
    "name": "Data Processing Pipeline",
    "steps": ["validate", "transform", "store"],
    "priority": "high",
    "createdAt": "2026-01-04T01:09:27.123Z"
  },
  "metadata": {
    "source": "api-gateway",
    "userId": null,
    "apiVersion": "1.0.0"
  }
}`},
	{"workflow.processing", events.TopicWorkflows, `{
  "eventType": "workflow.processing",
  "eventId": "evt-b2c3d4e5-f6a7-8901-bcde-f12345678901",
  "timestamp": "2026-01-04T01:09:30.456Z",
  "payload": {
    "workflowId": "wf-a1b2c3d4-e5f6-7890-abcd-ef1234567890",
    "startedAt": "2026-01-04T01:09:30.456Z",
    "currentStep": "validate",
    "currentStepIndex": 0
  },
  "metadata": {
    "source": "event-processor",
    "processorId": "worker-1"
  }
}`},
	{"workflow.step.completed", events.TopicWorkflows, `{
  "eventType": "workflow.step.completed",
  "eventId": "evt-c3d4e5f6-a7b8-9012-cdef-123456789012",
  "timestamp": "2026-01-04T01:09:33.789Z",
  "payload": {
    "workflowId": "wf-a1b2c3d4-e5f6-7890-abcd-ef1234567890",
    "stepName": "validate",
    "stepIndex": 0,
    "completedAt": "2026-01-04T01:09:33.789Z",
    "duration": 3333,
    "result": {
      "recordsProcessed": 1000,
      "validRecords": 950,
      "invalidRecords": 50
    }
  }
}`},
	{"workflow.completed", events.TopicWorkflows, `{
  "eventType": "workflow.completed",
  "eventId": "evt-d4e5f6a7-b8c9-0123-def1-234567890123",
  "timestamp": "2026-01-04T01:09:45.123Z",
  "payload": {
    "workflowId": "wf-a1b2c3d4-e5f6-7890-abcd-ef1234567890",
    "completedAt": "2026-01-04T01:09:45.123Z",
    "duration": 17667,
    "stepsCompleted": 3,
    "summary": {
      "totalRecords": 1000,
      "successfulRecords": 950,
      "failedRecords": 50
    }
  },
  "metadata": {
    "source": "event-processor",
    "processorId": "worker-1"
  }
}`},
	{"workflow.failed", events.TopicWorkflows, `{
  "eventType": "workflow.failed",
  "eventId": "evt-e5f6a7b8-c9d0-1234-ef12-345678901234",
  "timestamp": "2026-01-04T01:09:35.999Z",
  "payload": {
    "workflowId": "wf-a1b2c3d4-e5f6-7890-abcd-ef1234567890",
    "failedAt": "2026-01-04T01:09:35.999Z",
    "failedStep": "transform",
    "failedStepIndex": 1,
    "error": {
      "code": "TRANSFORM_ERROR",
      "message": "Invalid data format in record 523",
      "stack": "Error: Invalid data format...\n  at transform.js:45:12"
    }
  },
  "metadata": {
    "source": "event-processor",
    "processorId": "worker-1"
  }
}`},
	{"task.created", events.TopicTasks, `{
  "eventType": "task.created",
  "eventId": "evt-f6a7b8c9-d0e1-2345-f123-456789012345",
  "timestamp": "2026-01-04T01:10:00.000Z",
  "payload": {
    "taskId": "task-x1y2z3a4-b5c6-7890-defg-hi1234567890",
    "type": "email_notification",
    "data": {
      "recipient": "user@example.com",
      "subject": "Welcome to StreamOps",
      "template": "welcome_email"
    },
    "retryCount": 0,
    "maxRetries": 3,
    "createdAt": "2026-01-04T01:10:00.000Z"
  },
  "metadata": {
    "source": "api-gateway",
    "userId": null
  }
}`},
	{"task.processing", events.TopicTasks, `{
  "eventType": "task.processing",
  "eventId": "evt-a7b8c9d0-e1f2-3456-1234-567890123456",
  "timestamp": "2026-01-04T01:10:02.000Z",
  "payload": {
    "taskId": "task-x1y2z3a4-b5c6-7890-defg-hi1234567890",
    "startedAt": "2026-01-04T01:10:02.000Z",
    "retryCount": 0
  }
}`},
	{"task.completed", events.TopicTasks, `{
  "eventType": "task.completed",
  "eventId": "evt-b8c9d0e1-f2a3-4567-2345-678901234567",
  "timestamp": "2026-01-04T01:10:05.000Z",
  "payload": {
    "taskId": "task-x1y2z3a4-b5c6-7890-defg-hi1234567890",
    "completedAt": "2026-01-04T01:10:05.000Z",
    "duration": 3000,
    "result": {
      "emailSent": true,
      "messageId": "msg-123456"
    }
  }
}`},
	{"task.failed", events.TopicTasks, `{
  "eventType": "task.failed",
  "eventId": "evt-c9d0e1f2-a3b4-5678-3456-789012345678",
  "timestamp": "2026-01-04T01:10:05.000Z",
  "payload": {
    "taskId": "task-x1y2z3a4-b5c6-7890-defg-hi1234567890",
    "failedAt": "2026-01-04T01:10:05.000Z",
    "retryCount": 1,
    "maxRetries": 3,
    "error": {
      "code": "SMTP_ERROR",
      "message": "Connection timeout to mail server",
      "retryable": true
    },
    "nextRetryAt": "2026-01-04T01:10:35.000Z"
  }
}`},
	{"task.dead_letter", events.TopicTasks, `{
  "eventType": "task.dead_letter",
  "eventId": "evt-d0e1f2a3-b4c5-6789-4567-890123456789",
  "timestamp": "2026-01-04T01:12:00.000Z",
  "payload": {
    "taskId": "task-x1y2z3a4-b5c6-7890-defg-hi1234567890",
    "originalEvent": {
      "eventType": "task.created",
      "payload": {
        "taskId": "task-x1y2z3a4-b5c6-7890-defg-hi1234567890",
        "type": "email_notification",
        "data": {
          "recipient": "user@example.com",
          "subject": "Welcome to StreamOps",
          "template": "welcome_email"
        },
        "retryCount": 0,
        "maxRetries": 3,
        "createdAt": "2026-01-04T01:10:00.000Z"
      }
    },
    "retryCount": 3,
    "maxRetries": 3,
    "finalError": {
      "code": "SMTP_ERROR",
      "message": "Connection timeout to mail server",
      "stack": "..."
    },
    "deadLetteredAt": "2026-01-04T01:12:00.000Z"
  }
}`},
	{"Example Kafka Message", events.TopicWorkflows, `{
    "eventType": "workflow.created",
    "eventId": "evt-123",
    "timestamp": "2026-01-04T01:09:27Z",
    "payload": {
      "workflowId": "wf-a1b2c3d4-e5f6-7890-abcd-ef1234567890",
      "name": "Data Processing Pipeline",
      "steps": ["validate", "transform", "store"],
      "priority": "high",
      "createdAt": "2026-01-04T01:09:27.123Z"
    }
  }`},
	{"Publish Test Event", events.TopicWorkflows,
		`{"eventType":"workflow.created","eventId":"test-1","timestamp":"2026-01-04T01:00:00Z","payload":{"workflowId":"wf-test","name":"Test","steps":["step1"],"priority":"low","createdAt":"2026-01-04T01:00:00Z"}}`},
}

// SeedTestPublish is seed 003's "Publish Test Event": what its kcat line
// sends to topic workflows under key wf-test.
var SeedTestPublish = Seed003[len(Seed003)-1]

// Record is the example as a record of its topic, keyed by the aggregate id
// of its payload (the seed's `wf-test|…` for the test publish), placed by
// g on the key's partition.
func (s SeedExample) Record(tb testing.TB, g *Gen) *kgo.Record {
	tb.Helper()
	var env events.Envelope
	if err := env.UnmarshalJSON([]byte(s.Value)); err != nil {
		tb.Fatalf("seed 003 example %s: %v", s.Name, err)
	}
	return g.Place(&kgo.Record{Topic: s.Topic, Key: []byte(env.AggregateID()), Value: []byte(s.Value)}, 0)
}

// SeedExamplesOf are the examples of topic.
func SeedExamplesOf(topic string) []SeedExample {
	var out []SeedExample
	for _, s := range Seed003 {
		if s.Topic == topic {
			out = append(out, s)
		}
	}
	return out
}
