package history

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/fanout"
	"github.com/streamops/streamops/internal/status"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/testenv"
)

// TestAReplayToAPartnerEnqueuesItsSubscriptionsOnce: acme subscribed
// after some events were stored (no entries for them) and before others
// (fanned out as stored). A replay aimed at acme enqueues the events its
// subscriptions select, the already delivered ones as duplicates of
// their entries (the same ids), publishes and copies nothing, and a
// second replay enqueues nothing more.
func TestAReplayToAPartnerEnqueuesItsSubscriptionsOnce(t *testing.T) {
	env := testenv.New(t, testenv.Options{})
	ctx := context.Background()
	f := seed(t, env, 10, 1) // before acme subscribed: not fanned out
	partners := fanout.Static{"acme": {
		{EventTypes: []string{"workflow.created"}, Filter: json.RawMessage(`{"payload.workflowId": {"$in": ["wf-00001", "wf-00003", "wf-late"]}}`)}}}
	fo, err := fanout.New(partners, nil)
	require.NoError(t, err)
	env.Store.SetFanOut(fo)
	late := events.Envelope{EventType: events.WorkflowCreated, EventID: "evt-wf-late", Timestamp: events.At(window.Add(time.Second)),
		SchemaVersion: events.SchemaVersion, Payload: json.RawMessage(`{"workflowId":"wf-late","name":"w","steps":["validate"],"priority":"low","createdAt":"2026-03-01T12:00:00.000Z"}`)}
	_, err = env.Store.InsertEvents(ctx, []events.Envelope{late})
	require.NoError(t, err)
	count := func() int {
		n, err := env.Store.CountPartnerDeliveries(ctx, store.DeliveryFilter{PartnerID: "acme"})
		require.NoError(t, err)
		return n
	}
	require.Equal(t, 1, count(), "the late one, fanned out as stored")

	r := replayer(env, 4)
	r.Margin = time.Millisecond
	_, err = r.Start(ctx, store.ReplayConfig{Filter: f, RatePerSecond: MaxReplayRate, PartnerID: "acme"})
	require.ErrorIs(t, err, ErrNoPartnerFanOut, "a replayer without partners refuses")
	r.Partners = fo
	for round := 1; round <= 2; round++ {
		rs, err := r.Start(ctx, store.ReplayConfig{Filter: f, RatePerSecond: MaxReplayRate, PartnerID: "acme"})
		require.NoError(t, err)
		assert.Equal(t, "acme", rs.Config.PartnerID)
		rs, _ = runUntilEnded(t, r, rs.ID, time.Minute)
		assert.Equal(t, status.ReplayCompleted, rs.Status)
		assert.EqualValues(t, 11, rs.ReplayedEvents, "every selected event went through")
		assert.Equal(t, 3, count(), "round %d: the two backfilled, the late one not twice", round)
	}
	for _, wf := range []string{"wf-00001", "wf-00003", "wf-late"} {
		_, err := env.Store.GetOutboxEntry(ctx, store.SubscriptionOutboxID("evt-"+wf, "acme"))
		require.NoError(t, err, wf)
	}
	assert.Empty(t, env.Records(t, events.TopicWorkflows), "nothing published")
	n, err := env.Store.CountEvents(ctx, store.ReplayFilter{})
	require.NoError(t, err)
	assert.EqualValues(t, 11, n, "no copies stored")

	// A partner gone from the directory fails the session, visibly.
	gone, err := fanout.New(fanout.Static{}, nil)
	require.NoError(t, err)
	r.Partners = gone
	rs, err := r.Start(ctx, store.ReplayConfig{Filter: f, RatePerSecond: MaxReplayRate, PartnerID: "acme"})
	require.NoError(t, err)
	rs, _ = runUntilEnded(t, r, rs.ID, time.Minute)
	assert.Equal(t, status.ReplayFailed, rs.Status)
	require.NotEmpty(t, rs.Errors)
	assert.Contains(t, rs.Errors[len(rs.Errors)-1].Error, "partner not in the directory")
}
