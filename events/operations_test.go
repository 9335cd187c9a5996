package events_test

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/events"
)

// operationsPayloads is one payload of each operational event type, in
// OperationsTypes order, every field filled.
func operationsPayloads(now events.Time) []events.Payload {
	later := events.At(now.Add(30 * time.Second))
	return []events.Payload{
		events.PartnerPausedPayload{PartnerID: "acme", By: "ops-key", Reason: "maintenance", At: now, Backlog: 3},
		events.PartnerResumedPayload{PartnerID: "acme", By: "ops-key", At: later, PausedAt: &now, Backlog: 4},
		events.PartnerBreakerOpenedPayload{PartnerID: "acme", OpenedAt: now, OpenUntil: later, ConsecutiveFailures: 5, LastError: "HTTP 502"},
		events.PartnerBreakerClosedPayload{PartnerID: "acme", ClosedAt: later, OpenedAt: &now},
		events.PartnerThrottledPayload{PartnerID: "acme", OutboxID: "ob-1", StatusCode: 429, RetryAfter: "30", HoldUntil: later},
		events.DeliveryDeadLetteredPayload{OutboxID: "ob-1", PartnerID: "acme", OutboxEventType: "invoice.paid", Attempts: 5,
			StatusCode: 500, Error: "HTTP 500", ResponseBody: `{"error":"down"}`, DeadLetteredAt: now},
		events.PartnerFailingPayload{PartnerID: "acme", FailingSince: now, Percent: 50, DisableAfterMs: 60000, DisableAt: later,
			LastError: "HTTP 502", At: later},
		events.PartnerDisabledPayload{PartnerID: "acme", Reason: "every delivery failed", By: "outbox-relay", FailingSince: &now,
			LastError: "HTTP 502", DisableAfterMs: 60000, DisabledAt: later},
		events.PartnerEnabledPayload{PartnerID: "acme", By: "ops-key", At: later, DisabledAt: &now, Backlog: 4},
		events.SubjectErasedPayload{ReceiptID: "rc-1", Request: "email", By: "admin", ErasedAt: now,
			Subjects: []events.ErasedSubjectEntry{{SubjectID: "k3j5mq7r2v4x6z2b2d4f6h2j2l", Generation: 1}}},
	}
}

// jsonFieldsOf are the JSON names of struct v's fields, and which of them
// have omitempty.
func jsonFieldsOf(v any) (all, optional []string) {
	typ := reflect.TypeOf(v)
	for i := range typ.NumField() {
		name, opts, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
		all = append(all, name)
		if strings.Contains(opts, "omitempty") {
			optional = append(optional, name)
		}
	}
	return all, optional
}

// TestOperationsTypesAreOnTheOperationsTopic: the ten operational types
// are in the catalog and on the operations topic, and nothing else is.
func TestOperationsTypesAreOnTheOperationsTopic(t *testing.T) {
	var onTopic []events.Type
	for _, typ := range events.Types {
		if typ.Topic() == events.TopicOperations {
			onTopic = append(onTopic, typ)
		}
	}
	assert.Equal(t, events.OperationsTypes, onTopic)
	assert.Len(t, events.OperationsTypes, 10)
	for _, typ := range events.OperationsTypes {
		assert.True(t, typ.Known(), typ)
	}
}

// TestOperationsPayloadsAreTheirSchemas holds each operational payload
// struct to its schema, field by field: a filled payload validates; each
// field without omitempty is required (the event without it is refused
// naming it); each omitempty one may be left out; an unknown field is
// refused in what StreamOps produces and kept in what it consumes.
func TestOperationsPayloadsAreTheirSchemas(t *testing.T) {
	now := events.At(time.Date(2026, 1, 4, 2, 0, 0, 0, time.UTC))
	payloads := operationsPayloads(now)
	require.Len(t, payloads, len(events.OperationsTypes))
	for i, p := range payloads {
		typ := p.EventType()
		require.Equal(t, events.OperationsTypes[i], typ)
		env, err := events.NewEvent(p, &events.Metadata{Source: "operations", CorrelationID: "acme", PartnerID: "acme"})
		require.NoError(t, err, typ)
		if typ == events.SubjectErased {
			assert.Equal(t, "rc-1", env.AggregateID(), "%s is keyed by its receipt", typ)
		} else {
			assert.Equal(t, "acme", env.AggregateID(), "%s is keyed by its partnerId", typ)
		}
		fields, optional := jsonFieldsOf(p)

		// variant re-encodes env with its payload changed by edit.
		variant := func(edit func(map[string]any)) []byte {
			var doc map[string]any
			require.NoError(t, json.Unmarshal(mustJSON(t, env), &doc))
			edit(doc["payload"].(map[string]any))
			return mustJSON(t, doc)
		}
		t.Run(string(typ)+"/filled", func(t *testing.T) {
			assert.NoError(t, events.Produced.Validate(mustJSON(t, env)))
			var got map[string]any
			require.NoError(t, json.Unmarshal(env.Payload, &got))
			assert.Len(t, got, len(fields), "every field is filled")
		})
		for _, f := range fields {
			t.Run(string(typ)+"/without "+f, func(t *testing.T) {
				err := events.Produced.Validate(variant(func(p map[string]any) { delete(p, f) }))
				if slices.Contains(optional, f) {
					assert.NoError(t, err, "%s is omitempty: optional", f)
					return
				}
				var verr *events.ValidationError
				require.ErrorAs(t, err, &verr, "%s has no omitempty: required", f)
				assert.Equal(t, "required", verr.Rule)
				assert.Contains(t, verr.Error(), f)
			})
		}
		t.Run(string(typ)+"/unknown field", func(t *testing.T) {
			doc := variant(func(p map[string]any) { p["surprise"] = 1 })
			var verr *events.ValidationError
			require.ErrorAs(t, events.Produced.Validate(doc), &verr)
			assert.Equal(t, "/payload/surprise", verr.Path)
			assert.NoError(t, events.Consumed.Validate(doc), "a consumer keeps a newer producer's field")
		})
		t.Run(string(typ)+"/refused by New", func(t *testing.T) {
			var raw map[string]any
			require.NoError(t, json.Unmarshal(env.Payload, &raw))
			raw["surprise"] = 1
			_, err := events.New(typ, raw, nil)
			assert.Error(t, err)
		})
	}
}
