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
	payloads = append(payloads, operationsPayloads(now)...)
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

// TestEncodingIsNewsJSONUntilAFieldChanges: the JSON New validated is what
// a producer sends, for as long as the envelope is as New left it.
func TestEncodingIsNewsJSONUntilAFieldChanges(t *testing.T) {
	build := func(t *testing.T) events.Envelope {
		env, err := events.NewEvent(events.WorkflowProcessingPayload{WorkflowID: events.NewWorkflowID(), CurrentStep: "validate",
			StartedAt: events.Now()}, &events.Metadata{Source: "event-processor"})
		require.NoError(t, err)
		return env
	}
	tests := []struct {
		name   string
		change func(e *events.Envelope)
		kept   bool
	}{
		{"as New left it", func(*events.Envelope) {}, true},
		{"a copy", func(e *events.Envelope) { c := *e; *e = c }, true},
		{"a new eventId (ingest derives them)", func(e *events.Envelope) { e.EventID = events.NewEventID() }, false},
		{"another type", func(e *events.Envelope) { e.EventType = events.WorkflowCompleted }, false},
		{"another timestamp", func(e *events.Envelope) { e.Timestamp = events.At(e.Timestamp.Add(time.Millisecond)) }, false},
		{"another schema version", func(e *events.Envelope) { e.SchemaVersion = "2.0" }, false},
		{"a payload of the same bytes, assigned", func(e *events.Envelope) { e.Payload = append(json.RawMessage(nil), e.Payload...) }, false},
		{"another metadata", func(e *events.Envelope) { e.Metadata = &events.Metadata{Source: "other"} }, false},
		{"the metadata changed in place", func(e *events.Envelope) { e.Metadata.TraceID = "t-1" }, false},
		{"no metadata", func(e *events.Envelope) { e.Metadata = nil }, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := build(t)
			tc.change(&env)
			value, key, ok := env.Encoding()
			require.Equal(t, tc.kept, ok)
			if ok {
				want, err := json.Marshal(env)
				require.NoError(t, err)
				assert.Equal(t, string(want), string(value), "the record value is json.Marshal of the envelope")
				assert.Equal(t, env.AggregateID(), string(key), "the key is AggregateID")
			}
		})
	}
	decoded, err := events.Decode(func() []byte { b, _ := json.Marshal(build(t)); return b }())
	require.NoError(t, err)
	_, _, ok := decoded.Encoding()
	assert.False(t, ok, "a decoded envelope has no encoding of New's")
}

func TestNewEventAtTakesTheIDAndTimeAndKeepsItsEncoding(t *testing.T) {
	webhookID := events.NewWebhookEventID()
	id, at := events.DeriveID(events.EventIDPrefix, webhookID, "webhook.received"), events.At(time.Date(2026, 1, 2, 3, 4, 5, 6e6, time.UTC))
	env, err := events.NewEventAt(events.WebhookReceivedPayload{Provider: "github", ProviderEventID: "d-1", ProviderEventType: "push",
		WebhookEventID: webhookID}, nil, id, at)
	require.NoError(t, err)
	assert.Equal(t, id, env.EventID)
	assert.Equal(t, at, env.Timestamp)
	value, key, ok := env.Encoding()
	require.True(t, ok, "a derived id given to NewEventAt keeps New's encoding")
	want, err := json.Marshal(env)
	require.NoError(t, err)
	assert.Equal(t, string(want), string(value))
	assert.Equal(t, webhookID, string(key))

	_, err = events.NewEventAt(events.WebhookReceivedPayload{Provider: "github", ProviderEventID: "d-1", ProviderEventType: "push", WebhookEventID: webhookID}, nil, "not-an-event-id", at)
	assert.Error(t, err, "the id is validated with the rest of the event")
}
