package events_test

import (
	"encoding/json"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/events"
)

// v4 is a lowercase, hex, version-4, RFC 4122 variant UUID.
const v4 = `[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}`

func TestConstructorsProduceValidEvents(t *testing.T) {
	now := events.Now()
	later := events.At(now.Add(30 * time.Second))
	workflowID, taskID := events.NewWorkflowID(), events.NewTaskID()
	processor := &events.Metadata{Source: "event-processor", ProcessorID: "worker-1"}

	payloads := []events.Payload{
		events.WorkflowCreatedPayload{
			WorkflowID: workflowID, Name: "Data Processing Pipeline",
			Steps: []string{"validate", "transform", "store"}, Priority: events.PriorityHigh, CreatedAt: now,
		},
		events.WorkflowProcessingPayload{WorkflowID: workflowID, StartedAt: now, CurrentStep: "validate"},
		events.WorkflowStepCompletedPayload{
			WorkflowID: workflowID, StepName: "validate", CompletedAt: now, Duration: 3333,
			Result: events.StepResult{RecordsProcessed: 1000, ValidRecords: 950, InvalidRecords: 50},
		},
		events.WorkflowCompletedPayload{
			WorkflowID: workflowID, CompletedAt: now, Duration: 17667, StepsCompleted: 3,
			Summary: events.WorkflowSummary{TotalRecords: 1000, SuccessfulRecords: 950, FailedRecords: 50},
		},
		events.WorkflowFailedPayload{
			WorkflowID: workflowID, FailedAt: now, FailedStep: "transform", FailedStepIndex: 1,
			Error: events.WorkflowError{Code: "TRANSFORM_ERROR", Message: "Invalid data format in record 523"},
		},
		events.TaskCreatedPayload{
			TaskID: taskID, Type: events.TaskEmailNotification, Data: json.RawMessage(`{"recipient":"user@example.com"}`),
			MaxRetries: 3, CreatedAt: now,
		},
		events.TaskProcessingPayload{TaskID: taskID, StartedAt: now},
		events.TaskCompletedPayload{TaskID: taskID, CompletedAt: now, Duration: 3000, Result: json.RawMessage(`{"emailSent":true}`)},
		events.TaskFailedPayload{
			TaskID: taskID, FailedAt: now, RetryCount: 1, MaxRetries: 3, NextRetryAt: later,
			Error: events.TaskError{Code: "SMTP_ERROR", Message: "Connection timeout to mail server", Retryable: true},
		},
		events.TaskDeadLetterPayload{
			TaskID:        taskID,
			OriginalEvent: events.OriginalEvent{EventType: events.TaskCreated, Payload: json.RawMessage(`{"taskId":"` + taskID + `"}`)},
			RetryCount:    3, MaxRetries: 3, DeadLetteredAt: now,
			FinalError: events.FinalError{Code: "SMTP_ERROR", Message: "Connection timeout to mail server"},
		},
		events.WebhookReceivedPayload{
			Provider: "stripe", ProviderEventID: "evt_1QdXyZ2eZvKYlo2C8hTn4bLm",
			ProviderEventType: "invoice.finalized", WebhookEventID: events.NewWebhookEventID(),
		},
	}
	require.Len(t, payloads, len(events.Types), "one payload per event type")

	for _, p := range payloads {
		t.Run(string(p.EventType()), func(t *testing.T) {
			e, err := events.NewEvent(p, processor)
			require.NoError(t, err)

			raw, err := json.Marshal(e)
			require.NoError(t, err)
			assert.NoError(t, events.Validate(raw))

			assert.Equal(t, p.EventType(), e.EventType)
			assert.Regexp(t, "^evt-"+v4+"$", e.EventID)
			assert.Equal(t, events.SchemaVersion, e.SchemaVersion)
			assert.Regexp(t, `"timestamp":"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z"`, string(raw))
		})
	}
}

func TestNewFillsIDAndTimestampForAnyPayload(t *testing.T) {
	before := time.Now().Add(-time.Millisecond)
	e, err := events.New(events.TaskProcessing, map[string]any{
		"taskId": events.NewTaskID(), "startedAt": events.Now(), "retryCount": 0,
	}, nil)
	require.NoError(t, err)

	assert.Regexp(t, "^evt-"+v4+"$", e.EventID)
	assert.WithinRange(t, e.Timestamp.Time, before, time.Now())
	assert.Nil(t, e.Metadata)
}

func TestNewRefusesAnInvalidPayloadNamingTheField(t *testing.T) {
	_, err := events.NewEvent(events.WorkflowCreatedPayload{
		WorkflowID: events.NewWorkflowID(), Name: "No priority", Steps: []string{"validate"}, CreatedAt: events.Now(),
	}, nil)

	var verr *events.ValidationError
	require.ErrorAs(t, err, &verr)
	assert.Equal(t, "/payload/priority", verr.Path)
	assert.Equal(t, "enum", verr.Rule)
}

func TestNewRefusesAPayloadOfAnotherEventType(t *testing.T) {
	_, err := events.New(events.TaskCreated, events.TaskProcessingPayload{TaskID: events.NewTaskID()}, nil)
	assert.ErrorContains(t, err, "task.processing payload given for a task.created event")
}

func TestPayloadAsRefusesAPayloadOfAnotherEventType(t *testing.T) {
	e, err := events.Decode(readFixture(t, "task.created.json"))
	require.NoError(t, err)

	_, err = events.PayloadAs[events.TaskFailedPayload](e)
	assert.ErrorContains(t, err, "task.failed payload asked of task.created event")

	p, err := events.PayloadAs[events.TaskCreatedPayload](e)
	require.NoError(t, err)
	assert.Equal(t, events.TaskEmailNotification, p.Type)
	assert.JSONEq(t, `{"recipient":"user@example.com","subject":"Welcome to StreamOps","template":"welcome_email"}`, string(p.Data))
}

func TestNewIDsCarryTheSeedPrefixesAndAV4UUID(t *testing.T) {
	tests := []struct {
		name string
		new  func() string
		want string
	}{
		{"event", events.NewEventID, "^evt-" + v4 + "$"},
		{"workflow", events.NewWorkflowID, "^wf-" + v4 + "$"},
		{"task", events.NewTaskID, "^task-" + v4 + "$"},
		{"webhook event", events.NewWebhookEventID, "^" + v4 + "$"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, b := tt.new(), tt.new()
			assert.Regexp(t, regexp.MustCompile(tt.want), a)
			assert.NotEqual(t, a, b)
		})
	}
}
