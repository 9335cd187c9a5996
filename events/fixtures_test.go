package events_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/events"
)

// fixtureDir holds one seed-003 example per event type, named <eventType>.json.
const fixtureDir = "../testdata/events"

func readFixture(t testing.TB, name string) []byte {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(fixtureDir, name))
	require.NoError(t, err)
	return raw
}

// typedRoundTrip decodes an envelope's payload into its typed struct and
// encodes it again.
var typedRoundTrip = map[events.Type]func(events.Envelope) ([]byte, error){
	events.WorkflowCreated:       roundTrip[events.WorkflowCreatedPayload],
	events.WorkflowProcessing:    roundTrip[events.WorkflowProcessingPayload],
	events.WorkflowStepCompleted: roundTrip[events.WorkflowStepCompletedPayload],
	events.WorkflowCompleted:     roundTrip[events.WorkflowCompletedPayload],
	events.WorkflowFailed:        roundTrip[events.WorkflowFailedPayload],
	events.TaskCreated:           roundTrip[events.TaskCreatedPayload],
	events.TaskProcessing:        roundTrip[events.TaskProcessingPayload],
	events.TaskCompleted:         roundTrip[events.TaskCompletedPayload],
	events.TaskFailed:            roundTrip[events.TaskFailedPayload],
	events.TaskDeadLetter:        roundTrip[events.TaskDeadLetterPayload],
	events.WebhookReceived:       roundTrip[events.WebhookReceivedPayload],
	events.PartnerPaused:         roundTrip[events.PartnerPausedPayload],
	events.PartnerResumed:        roundTrip[events.PartnerResumedPayload],
	events.PartnerBreakerOpened:  roundTrip[events.PartnerBreakerOpenedPayload],
	events.PartnerBreakerClosed:  roundTrip[events.PartnerBreakerClosedPayload],
	events.PartnerThrottled:      roundTrip[events.PartnerThrottledPayload],
	events.DeliveryDeadLettered:  roundTrip[events.DeliveryDeadLetteredPayload],
	events.PartnerFailing:        roundTrip[events.PartnerFailingPayload],
	events.PartnerDisabled:       roundTrip[events.PartnerDisabledPayload],
	events.PartnerEnabled:        roundTrip[events.PartnerEnabledPayload],
	events.SubjectErased:         roundTrip[events.SubjectErasedPayload],
}

func roundTrip[T any](e events.Envelope) ([]byte, error) {
	p, err := events.PayloadAs[T](e)
	if err != nil {
		return nil, err
	}
	return json.Marshal(p)
}

func TestEveryEventTypeHasAFixture(t *testing.T) {
	for _, typ := range events.Types {
		assert.FileExists(t, filepath.Join(fixtureDir, string(typ)+".json"))
		assert.Contains(t, typedRoundTrip, typ)
	}
}

func TestSeedExamplesValidate(t *testing.T) {
	for _, typ := range events.Types {
		t.Run(string(typ), func(t *testing.T) {
			assert.NoError(t, events.Validate(readFixture(t, string(typ)+".json")))
		})
	}
}

func TestSeedExamplesRoundTripThroughEnvelope(t *testing.T) {
	for _, typ := range events.Types {
		t.Run(string(typ), func(t *testing.T) {
			raw := readFixture(t, string(typ)+".json")

			e, err := events.Decode(raw)
			require.NoError(t, err)
			assert.Equal(t, typ, e.EventType)

			out, err := json.Marshal(e)
			require.NoError(t, err)
			assert.JSONEq(t, string(raw), string(out))
		})
	}
}

func TestSeedExamplesRoundTripThroughTypedPayload(t *testing.T) {
	for _, typ := range events.Types {
		t.Run(string(typ), func(t *testing.T) {
			e, err := events.Decode(readFixture(t, string(typ)+".json"))
			require.NoError(t, err)

			out, err := typedRoundTrip[typ](e)
			require.NoError(t, err)
			assert.JSONEq(t, string(e.Payload), string(out))
		})
	}
}

func TestSeedMetadataKeepsAbsentAndNullUserIDApart(t *testing.T) {
	tests := []struct {
		fixture string
		want    *events.Metadata
	}{
		{"workflow.created.json", &events.Metadata{Source: "api-gateway", UserID: events.Null, APIVersion: "1.0.0"}},
		{"workflow.processing.json", &events.Metadata{Source: "event-processor", ProcessorID: "worker-1"}},
		{"task.processing.json", nil},
	}
	for _, tt := range tests {
		t.Run(tt.fixture, func(t *testing.T) {
			e, err := events.Decode(readFixture(t, tt.fixture))
			require.NoError(t, err)
			assert.Equal(t, tt.want, e.Metadata)
		})
	}
}

func TestSeedExamplesPartitionByTheirAggregate(t *testing.T) {
	tests := map[events.Type]string{
		events.WorkflowCreated:      "wf-a1b2c3d4-e5f6-7890-abcd-ef1234567890",
		events.WorkflowFailed:       "wf-a1b2c3d4-e5f6-7890-abcd-ef1234567890",
		events.TaskDeadLetter:       "task-x1y2z3a4-b5c6-7890-defg-hi1234567890",
		events.WebhookReceived:      "7c9e6679-7425-40de-944b-e07bc1f5d8a2",
		events.PartnerThrottled:     "acme",
		events.DeliveryDeadLettered: "acme",
	}
	for typ, want := range tests {
		t.Run(string(typ), func(t *testing.T) {
			e, err := events.Decode(readFixture(t, string(typ)+".json"))
			require.NoError(t, err)
			assert.Equal(t, want, e.AggregateID())
		})
	}
}
