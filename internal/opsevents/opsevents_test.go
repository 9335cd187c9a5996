package opsevents_test

import (
	"bytes"
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/opsevents"
	"github.com/streamops/streamops/internal/testenv"
	"github.com/streamops/streamops/internal/tracing"
)

const trace = "4bf92f3577b34da6a3ce929d0e0e4736"

// cases are one event of each operational type, with its derived id.
func cases() []struct {
	typ     events.Type
	partner string
	payload events.Payload
	id      string
} {
	at := time.Date(2026, 1, 4, 2, 0, 0, 123e6, time.UTC)
	now, later := events.At(at), events.At(at.Add(30*time.Second))
	return []struct {
		typ     events.Type
		partner string
		payload events.Payload
		id      string
	}{
		{events.PartnerPaused, "acme", events.PartnerPausedPayload{PartnerID: "acme", By: "ops", Reason: "maintenance", At: now, Backlog: 2},
			opsevents.PausedID("acme", at)},
		{events.PartnerResumed, "acme", events.PartnerResumedPayload{PartnerID: "acme", By: "ops", At: later, PausedAt: &now, Backlog: 3},
			opsevents.ResumedID("acme", later.Time)},
		{events.PartnerBreakerOpened, "globex", events.PartnerBreakerOpenedPayload{PartnerID: "globex", OpenedAt: now, OpenUntil: later,
			ConsecutiveFailures: 5, LastError: "HTTP 502"}, opsevents.BreakerOpenedID("globex", at)},
		{events.PartnerBreakerClosed, "globex", events.PartnerBreakerClosedPayload{PartnerID: "globex", ClosedAt: later, OpenedAt: &now},
			opsevents.BreakerClosedID("globex", at)},
		{events.PartnerThrottled, "initech", events.PartnerThrottledPayload{PartnerID: "initech", OutboxID: "ob-1", StatusCode: 429,
			RetryAfter: "30", HoldUntil: later}, opsevents.ThrottledID("initech", later.Time)},
		{events.DeliveryDeadLettered, "initech", events.DeliveryDeadLetteredPayload{OutboxID: "ob-2", PartnerID: "initech",
			OutboxEventType: "invoice.paid", Attempts: 5, StatusCode: 500, Error: "HTTP 500", ResponseBody: "down", DeadLetteredAt: now},
			opsevents.DeadLetteredID("ob-2", 5, 0)},
		{events.PartnerFailing, "umbrella", events.PartnerFailingPayload{PartnerID: "umbrella", FailingSince: now, Percent: 90,
			DisableAfterMs: 60000, DisableAt: later, LastError: "HTTP 502", At: later}, opsevents.FailingID("umbrella", at, 90)},
		{events.PartnerDisabled, "umbrella", events.PartnerDisabledPayload{PartnerID: "umbrella", Reason: "every delivery failed",
			By: "outbox-relay", FailingSince: &now, LastError: "HTTP 502", DisableAfterMs: 60000, DisabledAt: later},
			opsevents.DisabledID("umbrella", later.Time)},
		{events.PartnerEnabled, "umbrella", events.PartnerEnabledPayload{PartnerID: "umbrella", By: "ops", At: later, DisabledAt: &now,
			Backlog: 7}, opsevents.EnabledID("umbrella", later.Time)},
		{events.SubjectErased, "", events.SubjectErasedPayload{ReceiptID: "rc-1", Request: "email", By: "admin", ErasedAt: now,
			Subjects: []events.ErasedSubjectEntry{{SubjectID: "k3j5mq7r2v4x6z2b2d4f6h2j2l", Generation: 1}}},
			opsevents.SubjectErasedID("rc-1")},
	}
}

// TestEmitStoresAndPublishesEachOperationalEvent emits one event of each
// type (twice: the second, a retried relay's, is a duplicate) and reads
// each back from the history and from the operations topic: the payload
// as given, the derived id, keyed by partnerId, correlationId and
// partnerId the partner, the context's trace.
func TestEmitStoresAndPublishesEachOperationalEvent(t *testing.T) {
	env := testenv.New(t, testenv.Options{})
	ops := opsevents.New(env.Emitter, env.Logger)
	ctx := tracing.FromTraceparent(context.Background(), "00-"+trace+"-00f067aa0ba902b7-01", "")
	tcs := cases()
	require.Len(t, tcs, len(events.OperationsTypes), "one case per operational type")
	for _, tc := range tcs {
		require.NoError(t, ops.Emit(ctx, tc.typ, tc.partner, tc.payload, tc.id), tc.typ)
		require.NoError(t, ops.Emit(ctx, tc.typ, tc.partner, tc.payload, tc.id), "%s again: a duplicate, not an error", tc.typ)
	}

	recs := env.Records(t, events.TopicOperations)
	require.Len(t, recs, len(tcs), "one record per event: the retried emits are not published again")
	byID := map[string]events.Envelope{}
	for _, r := range recs {
		e, err := events.Consumed.Decode(r.Value)
		require.NoError(t, err)
		assert.Equal(t, e.AggregateID(), string(r.Key), "keyed by partnerId")
		byID[e.EventID] = e
	}
	for _, tc := range tcs {
		t.Run(string(tc.typ), func(t *testing.T) {
			want := mustJSON(t, tc.payload)
			pub, ok := byID[tc.id]
			require.True(t, ok, "published under its derived id")
			assert.Equal(t, tc.typ, pub.EventType)
			key := tc.partner
			if key == "" { // subject.erased, keyed by its receipt
				key = "rc-1"
			}
			assert.Equal(t, key, pub.AggregateID())
			assert.JSONEq(t, string(want), string(pub.Payload))
			require.NotNil(t, pub.Metadata)
			assert.Equal(t, events.Metadata{Source: opsevents.Source, TraceID: trace, CorrelationID: tc.partner, PartnerID: tc.partner}, *pub.Metadata)

			doc, err := env.Store.GetEvent(context.Background(), tc.id)
			require.NoError(t, err)
			assert.Equal(t, key, doc.AggregateID)
			assert.Equal(t, tc.partner, doc.PartnerID)
			assert.False(t, doc.PublishPending, "marked published")
			stored, err := doc.Envelope()
			require.NoError(t, err)
			assert.JSONEq(t, string(want), string(stored.Payload))
			assert.Equal(t, trace, stored.Metadata.TraceID)
		})
	}
}

// TestEmitWithTheBrokerDownLeavesTheEventForTheSweeper: the event is
// stored unpublished and Emit does not fail.
func TestEmitWithTheBrokerDownLeavesTheEventForTheSweeper(t *testing.T) {
	env := testenv.New(t, testenv.Options{PublishTimeout: 300 * time.Millisecond})
	env.StopBroker()
	tc := cases()[2]
	require.NoError(t, opsevents.New(env.Emitter, env.Logger).Emit(context.Background(), tc.typ, tc.partner, tc.payload, tc.id))
	pending, err := env.Store.UnpublishedEvents(context.Background(), time.Now().Add(time.Hour), 10)
	require.NoError(t, err)
	require.Len(t, pending, 1)
	assert.Equal(t, tc.id, pending[0].EventID)
}

// TestEmitRefusesWhatIsNotAnOperationalEvent: another event type, a
// payload of another type, one its schema refuses: an error, logged,
// nothing stored.
func TestEmitRefusesWhatIsNotAnOperationalEvent(t *testing.T) {
	env := testenv.New(t, testenv.Options{})
	var logs bytes.Buffer
	ops := opsevents.New(env.Emitter, slog.New(slog.NewJSONHandler(&logs, nil)))
	now := events.Now()
	tests := []struct {
		name    string
		typ     events.Type
		payload any
	}{
		{"another topic's type", events.TaskCreated, events.PartnerPausedPayload{PartnerID: "acme", By: "ops", At: now}},
		{"another type's payload", events.PartnerPaused, events.PartnerResumedPayload{PartnerID: "acme", By: "ops", At: now}},
		{"a required field missing", events.PartnerPaused, map[string]any{"partnerId": "acme", "at": now}},
		{"an unknown field", events.PartnerPaused, map[string]any{"partnerId": "acme", "by": "ops", "at": now, "backlog": 0, "x": 1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			logs.Reset()
			id := events.NewEventID()
			assert.Error(t, ops.Emit(context.Background(), tc.typ, "acme", tc.payload, id))
			assert.Contains(t, logs.String(), "operational event not emitted")
			_, err := env.Store.GetEvent(context.Background(), id)
			assert.Error(t, err, "nothing stored")
		})
	}
}

// TestNilEmitterEmitsNothing: functions without Kafka hold a nil Emitter.
func TestNilEmitterEmitsNothing(t *testing.T) {
	var ops *opsevents.Emitter
	assert.Nil(t, opsevents.New(nil, nil))
	tc := cases()[0]
	assert.NoError(t, ops.Emit(context.Background(), tc.typ, tc.partner, tc.payload, tc.id))
}

// TestIDsAreDerivedFromWhatTheEventReports: the same facts give the same
// id (a time read back from the store, at millisecond precision, too);
// each differing fact, or another type over the same facts, another id.
func TestIDsAreDerivedFromWhatTheEventReports(t *testing.T) {
	at := time.Date(2026, 1, 4, 2, 0, 0, 123456789, time.UTC)
	stored := at.Truncate(time.Millisecond).In(time.FixedZone("x", 3600))
	assert.Equal(t, opsevents.BreakerOpenedID("acme", at), opsevents.BreakerOpenedID("acme", stored))
	ids := []string{
		opsevents.PausedID("acme", at), opsevents.ResumedID("acme", at), opsevents.BreakerOpenedID("acme", at),
		opsevents.BreakerClosedID("acme", at), opsevents.ThrottledID("acme", at),
		opsevents.PausedID("globex", at), opsevents.PausedID("acme", at.Add(time.Millisecond)),
		opsevents.DeadLetteredID("ob-1", 5, 0), opsevents.DeadLetteredID("ob-1", 5, 1), opsevents.DeadLetteredID("ob-1", 6, 0),
		opsevents.DeadLetteredID("ob-2", 5, 0),
	}
	seen := map[string]bool{}
	for _, id := range ids {
		assert.Regexp(t, `^evt-[0-9a-f-]{36}$`, id)
		assert.False(t, seen[id], "%s repeats", id)
		seen[id] = true
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	e, err := events.New(v.(events.Payload).EventType(), v, nil)
	require.NoError(t, err)
	return e.Payload
}
