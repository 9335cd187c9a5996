package sweep_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/ingest"
	"github.com/streamops/streamops/internal/stacktest"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/store/storetest"
	"github.com/streamops/streamops/internal/sweep"
	"github.com/streamops/streamops/internal/webhook"
)

type harness struct {
	*stacktest.Env
	clock   *storetest.Clock
	sweeper *sweep.Sweeper
}

func newHarness(t *testing.T) *harness {
	clock := storetest.NewClock()
	env := stacktest.New(t, stacktest.Options{Store: store.Config{Now: clock.Now}})
	reg, err := webhook.LoadProviders("")
	require.NoError(t, err)
	router, err := ingest.New(ingest.Config{Providers: reg, Secrets: webhook.EnvSecrets{}, Store: env.Store,
		Emitter: env.Emitter, Now: clock.Now, Logger: env.Logger})
	require.NoError(t, err)
	sw, err := sweep.New(sweep.Config{Store: env.Store, Publisher: env.Bus, Router: router, Now: clock.Now, Logger: env.Logger})
	require.NoError(t, err)
	return &harness{Env: env, clock: clock, sweeper: sw}
}

func TestSweeperPublishesWhatTheInlinePathLeft(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	env, err := events.NewEvent(events.WorkflowCreatedPayload{WorkflowID: events.NewWorkflowID(), Name: "n",
		Steps: []string{"validate"}, Priority: events.PriorityLow, CreatedAt: events.Now()}, nil)
	require.NoError(t, err)
	require.NoError(t, h.Store.InsertEvent(ctx, env)) // stored, the publish never happened

	st, err := h.sweeper.Run(ctx)
	require.NoError(t, err)
	assert.Zero(t, st.Published, "younger than 30 s: the inline path may still publish it")

	h.clock.Advance(31 * time.Second)
	st, err = h.sweeper.Run(ctx)
	require.NoError(t, err)
	assert.Equal(t, 1, st.Published)
	published := h.Envelopes(t, events.TopicWorkflows)
	require.Len(t, published, 1)
	assert.Equal(t, env.EventID, published[0].EventID)
	assert.JSONEq(t, string(env.Payload), string(published[0].Payload))

	st, err = h.sweeper.Run(ctx)
	require.NoError(t, err)
	assert.Zero(t, st.Published, "published once")
}

func TestSweeperRoutesWebhookEventsACrashLeftReceived(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	payload, _ := json.Marshal(map[string]any{"id": "in_1", "type": "invoice.paid", "data": map[string]any{"object": map[string]any{"id": "in_1"}}})
	ev, err := h.Store.InsertWebhookEvent(ctx, store.WebhookEvent{Provider: "stripe", ProviderEventID: "evt_crash",
		EventType: "invoice.paid", Payload: store.JSONDoc(payload)})
	require.NoError(t, err)

	h.clock.Advance(3 * time.Minute)
	st, err := h.sweeper.Run(ctx)
	require.NoError(t, err)
	assert.Equal(t, 1, st.WebhooksRouted)
	got, err := h.Store.GetWebhookEvent(ctx, ev.EventID)
	require.NoError(t, err)
	assert.Equal(t, store.WebhookProcessing, got.Status)
	wfs := h.Envelopes(t, events.TopicWorkflows)
	require.Len(t, wfs, 1)
	assert.Equal(t, ev.EventID, wfs[0].Metadata.CorrelationID)

	st, err = h.sweeper.Run(ctx)
	require.NoError(t, err)
	assert.Zero(t, st.WebhooksRouted, "a routed event is left alone")
}

func TestSweeperRequeuesFailedPartnerDeliveries(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	id := store.OutboxID("evt-1", "acme")
	_, err := h.Store.EnqueueOutbox(ctx, store.OutboxEntry{OutboxID: id, TargetProvider: "acme", EventType: "OR_MGMT",
		AggregateID: "order-1", Payload: store.JSONDoc(`{"x":1}`)})
	require.NoError(t, err)
	claimed, err := h.Store.ClaimDue(ctx, h.clock.Now(), time.Minute, 1)
	require.NoError(t, err)
	require.NoError(t, h.Store.DeadLetter(ctx, claimed[0], "HTTP 410"))
	_, err = h.Store.InsertPartnerEvent(ctx, store.PartnerEvent{ID: "pe-1", EventType: "OR_MGMT", EventStatus: store.PartnerFailed,
		EventDirection: store.DirectionOut, OutboxID: id, EntityMetadata: store.PartnerEntityMetadata{PartnerID: "acme",
			EntityID: "order-1", ResilienceAttemptCount: map[string]string{"1": "1"}}})
	require.NoError(t, err)

	st, err := h.sweeper.Run(ctx)
	require.NoError(t, err)
	assert.Equal(t, 1, st.PartnerRequeued)
	again, err := h.Store.ClaimDue(ctx, h.clock.Now(), time.Minute, 1)
	require.NoError(t, err)
	require.Len(t, again, 1, "due again")
	assert.Equal(t, 2, again[0].Attempts)
}
