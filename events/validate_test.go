package events_test

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/events"
)

func TestValidateNamesTheBrokenField(t *testing.T) {
	tests := []struct {
		fixture   string
		eventType events.Type
		path      string
		rule      string
	}{
		{"workflow.created.missing-name.json", events.WorkflowCreated, "/payload/name", "required"},
		{"workflow.created.bad-priority.json", events.WorkflowCreated, "/payload/priority", "enum"},
		{"workflow.created.steps-not-array.json", events.WorkflowCreated, "/payload/steps", "type"},
		{"workflow.created.bad-event-id.json", events.WorkflowCreated, "/eventId", "pattern"},
		{"workflow.created.bad-timestamp.json", events.WorkflowCreated, "/timestamp", "format"},
		{"workflow.created.user-id-not-string.json", events.WorkflowCreated, "/metadata/userId", "type"},
		{"workflow.created.unknown-metadata-field.json", events.WorkflowCreated, "/metadata/tenant", "additionalProperties"},
		{"workflow.step.completed.missing-valid-records.json", events.WorkflowStepCompleted, "/payload/result/validRecords", "required"},
		{"task.created.bad-task-id.json", events.TaskCreated, "/payload/taskId", "maxLength"},
		{"task.created.bad-type.json", events.TaskCreated, "/payload/type", "enum"},
		{"task.created.negative-retry-count.json", events.TaskCreated, "/payload/retryCount", "minimum"},
		{"task.failed.bad-next-retry-at.json", events.TaskFailed, "/payload/nextRetryAt", "format"},
		{"task.failed.missing-retryable.json", events.TaskFailed, "/payload/error/retryable", "required"},
		{"task.dead_letter.original-not-a-task-event.json", events.TaskDeadLetter, "/payload/originalEvent/eventType", "enum"},
		{"webhook.received.webhook-event-id-not-uuid.json", events.WebhookReceived, "/payload/webhookEventId", "format"},
		{"unknown-event-type.json", "workflow.exploded", "/eventType", "enum"},
		{"missing-event-type.json", "", "/eventType", "required"},
		{"not-an-object.json", "", "", "type"},
		{"not-json.json", "", "", "json"},
	}
	for _, tt := range tests {
		t.Run(tt.fixture, func(t *testing.T) {
			err := events.Validate(readFixture(t, filepath.Join("invalid", tt.fixture)))

			var verr *events.ValidationError
			require.ErrorAs(t, err, &verr)
			assert.Equal(t, tt.eventType, verr.EventType)
			assert.Equal(t, tt.path, verr.Path)
			assert.Equal(t, tt.rule, verr.Rule)
			assert.NotEmpty(t, verr.Message)
			assert.ErrorIs(t, err, events.ErrInvalid)
		})
	}
}

func TestValidationErrorReadsTypePathRuleAndReason(t *testing.T) {
	tests := []struct {
		fixture string
		want    string
	}{
		{"workflow.created.bad-priority.json", `events: workflow.created: /payload/priority: enum: value must be one of "low", "medium", "high"`},
		{"workflow.created.missing-name.json", `events: workflow.created: /payload/name: required: property is missing`},
		{"missing-event-type.json", `events: /eventType: required: property is missing`},
		{"not-an-object.json", `events: (root): type: got array, want object`},
	}
	for _, tt := range tests {
		t.Run(tt.fixture, func(t *testing.T) {
			err := events.Validate(readFixture(t, filepath.Join("invalid", tt.fixture)))
			assert.EqualError(t, err, tt.want)
		})
	}
}

func TestValidationErrorNeverQuotesThePayload(t *testing.T) {
	err := events.Validate(readFixture(t, "invalid/task.created.bad-task-id.json"))
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "task-xxxxxxxx")
}

func TestValidateRejectsEmptyInput(t *testing.T) {
	var verr *events.ValidationError
	require.ErrorAs(t, events.Validate(nil), &verr)
	assert.Equal(t, "json", verr.Rule)
}

func TestDecodeRejectsPoisonRecordNamingTheField(t *testing.T) {
	_, err := events.Decode(readFixture(t, "invalid/task.created.bad-type.json"))

	var verr *events.ValidationError
	require.True(t, errors.As(err, &verr))
	assert.Equal(t, "/payload/type", verr.Path)
}

func BenchmarkValidate(b *testing.B) {
	raw := readFixture(b, "workflow.created.json")
	require.NoError(b, events.Validate(raw)) // compile the schemas outside the loop
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		if err := events.Validate(raw); err != nil {
			b.Fatal(err)
		}
	}
}

func TestTimestampsAcceptAnyRFC3339Time(t *testing.T) {
	tests := []struct {
		timestamp string
		valid     bool
	}{
		{"2026-01-04T01:09:27.123Z", true},
		{"2026-01-04T01:09:27Z", true},
		{"2026-01-04T02:09:27.123456+01:00", true},
		{"2026-01-04t01:09:27z", false}, // RFC 3339 allows it, Time does not decode it
		{"2026-01-04 01:09:27", false},
		{"2026-01-04", false},
		{"1735949367123", false},
	}
	for _, tt := range tests {
		t.Run(tt.timestamp, func(t *testing.T) {
			var doc map[string]any
			require.NoError(t, json.Unmarshal(readFixture(t, "workflow.created.json"), &doc))
			doc["timestamp"] = tt.timestamp
			raw, err := json.Marshal(doc)
			require.NoError(t, err)

			err = events.Validate(raw)
			if !tt.valid {
				var verr *events.ValidationError
				require.ErrorAs(t, err, &verr)
				assert.Equal(t, "/timestamp", verr.Path)
				return
			}
			require.NoError(t, err)
			_, err = events.Decode(raw)
			assert.NoError(t, err)
		})
	}
}
