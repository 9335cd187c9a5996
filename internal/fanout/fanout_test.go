package fanout_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/fanout"
	"github.com/streamops/streamops/internal/outbox"
	"github.com/streamops/streamops/internal/pii"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/store/storetest"
	"github.com/streamops/streamops/internal/subscribe"
)

// directory is a partner directory a test changes at run time, and can
// make fail (the store-backed one's store unavailable).
type directory struct {
	mu       sync.Mutex
	partners map[string]outbox.Partner
	err      error
}

func (d *directory) Partners(context.Context) (map[string]outbox.Partner, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.partners, d.err
}

func (d *directory) set(partners map[string]outbox.Partner, err error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.partners, d.err = partners, err
}

// partner is a partner endpoint subscribed to subs.
func partner(id string, subs ...subscribe.Subscription) outbox.Partner {
	return outbox.Partner{ID: id, URL: "https://" + id + ".example/hooks", Subscriptions: subs}
}

// sub is a subscription to types with filter ("" for none).
func sub(filter string, types ...string) subscribe.Subscription {
	return subscribe.Subscription{EventTypes: types, Filter: json.RawMessage(filter)}
}

// example is the catalog's example event of type t with id id.
func example(t *testing.T, ty events.Type, id string) events.Envelope {
	raw, err := events.Example(ty)
	require.NoError(t, err)
	env, err := events.Decode(raw)
	require.NoError(t, err)
	env.EventID = id
	return env
}

// withName is env with payload.name set (a workflow's name).
func withName(t *testing.T, env events.Envelope, name string) events.Envelope {
	var p map[string]any
	require.NoError(t, json.Unmarshal(env.Payload, &p))
	p["name"] = name
	env.Payload, _ = json.Marshal(p)
	return env
}

// subscriptionsOf is a relay partner's subscriptions (fanout.Over).
func subscriptionsOf(p outbox.Partner) []subscribe.Subscription { return p.Subscriptions }

// open is a store on the embedded engine fanning out over the relay's
// partner directory dir.
func open(t *testing.T, dir outbox.PartnerDirectory) *store.Store {
	s := storetest.Open(t, store.Config{})
	f, err := fanout.New(fanout.Over(dir, subscriptionsOf), nil)
	require.NoError(t, err)
	s.SetFanOut(f)
	return s
}

// deliveries are partner's outbox entries.
func deliveries(t *testing.T, s *store.Store, partnerID string) []store.OutboxEntry {
	out, _, err := s.ListPartnerDeliveries(context.Background(), store.DeliveryQuery{DeliveryFilter: store.DeliveryFilter{PartnerID: partnerID}})
	require.NoError(t, err)
	return out
}

func TestSubscribedEventStoredTwiceIsEnqueuedOnce(t *testing.T) {
	ctx := context.Background()
	dir := &directory{partners: map[string]outbox.Partner{
		"acme": partner("acme", sub(`{"payload.name": "orders"}`, "workflow.completed")),
	}}
	s := open(t, dir)
	env := withName(t, example(t, events.WorkflowCompleted, "evt-orders-1"), "orders")

	_, err := s.InsertEvents(ctx, []events.Envelope{env})
	require.NoError(t, err)
	res, err := s.InsertEvents(ctx, []events.Envelope{env}) // a re-emit
	require.NoError(t, err)
	require.Equal(t, []string{env.EventID}, res.Duplicates)
	require.ErrorIs(t, s.InsertEvent(ctx, env), store.ErrDuplicate, "InsertEvent still says duplicate")

	got := deliveries(t, s, "acme")
	require.Len(t, got, 1)
	e, err := s.GetOutboxEntry(ctx, got[0].OutboxID)
	require.NoError(t, err)
	assert.Equal(t, store.SubscriptionOutboxID(env.EventID, "acme"), e.OutboxID)
	assert.NotEqual(t, store.OutboxID(env.EventID, "acme"), e.OutboxID, "not a deliver step's id")
	assert.Equal(t, "workflow.completed", e.EventType)
	assert.Equal(t, fanout.AggregateType, e.AggregateType)
	assert.Equal(t, env.EventID, e.AggregateID)
	want, err := json.Marshal(env)
	require.NoError(t, err)
	want, err = pii.Scrub(want)
	require.NoError(t, err)
	var payload map[string]any
	require.NoError(t, json.Unmarshal(e.Payload, &payload))
	assert.Equal(t, "orders", payload["payload"].(map[string]any)["name"], "the workflow's name, which the partner subscribes by, is no person's")
	want = bytes.Replace(want, []byte(`"name":"[REDACTED]"`), []byte(`"name":"orders"`), 1)
	assert.JSONEq(t, string(want), string(e.Payload), "the envelope as stored, scrubbed as every outbox payload")
}

func TestReplayedCopyOfASubscribedEventIsNotEnqueuedAgain(t *testing.T) {
	ctx := context.Background()
	dir := &directory{partners: map[string]outbox.Partner{"acme": partner("acme", sub("", "workflow.*"))}}
	s := open(t, dir)
	env := example(t, events.WorkflowCompleted, "evt-original")
	_, err := s.InsertEvents(ctx, []events.Envelope{env})
	require.NoError(t, err)

	cp := env
	cp.EventID = "evt-replayed-copy"
	meta := *env.Metadata
	meta.ReplayOf = env.EventID
	cp.Metadata = &meta
	_, err = s.InsertReplayEvents(ctx, "session-1", "", []events.Envelope{cp})
	require.NoError(t, err)

	got := deliveries(t, s, "acme")
	require.Len(t, got, 1, "the copy is the same delivery")
	assert.Equal(t, store.SubscriptionOutboxID(env.EventID, "acme"), got[0].OutboxID)
}

func TestEventFansOutToEachMatchingPartner(t *testing.T) {
	ctx := context.Background()
	dir := &directory{partners: map[string]outbox.Partner{
		"acme":   partner("acme", sub("", "workflow.completed")),
		"beta":   partner("beta", sub(`{"payload.stepsCompleted": {"$gte": 3.0}}`, "workflow.*"), sub("", "task.*")),
		"paused": {ID: "paused", URL: "https://paused.example", Disabled: true, Subscriptions: []subscribe.Subscription{sub("", "*")}},
		"picky":  partner("picky", sub(`{"payload.stepsCompleted": {"$gt": 3}}`, "workflow.completed")),
		"tasks":  partner("tasks", sub("", "task.*")),
		"none":   partner("none"),
		"broken": partner("broken", sub(`{"a": {"$regex": "x"}}`, "*")), // stored by hand: selects nothing
	}}
	s := open(t, dir)
	env := example(t, events.WorkflowCompleted, "evt-two-partners")
	_, err := s.InsertEvents(ctx, []events.Envelope{env})
	require.NoError(t, err)

	for id, want := range map[string]int{"acme": 1, "beta": 1, "paused": 1, "picky": 0, "tasks": 0, "none": 0, "broken": 0} {
		assert.Len(t, deliveries(t, s, id), want, id)
	}

	// A partner deleted (gone from the directory) gets nothing more; a
	// subscription changed at run time applies to the next event.
	dir.set(map[string]outbox.Partner{"picky": partner("picky", sub(`{"payload.stepsCompleted": {"$gt": 2}}`, "workflow.completed"))}, nil)
	_, err = s.InsertEvents(ctx, []events.Envelope{example(t, events.WorkflowCompleted, "evt-after-change")})
	require.NoError(t, err)
	assert.Len(t, deliveries(t, s, "acme"), 1, "deleted")
	assert.Len(t, deliveries(t, s, "picky"), 1, "changed")
}

func TestFilterThatFailsEnqueuesNothingAndCostsNoCommand(t *testing.T) {
	ctx := context.Background()
	dir := &directory{partners: map[string]outbox.Partner{
		"acme": partner("acme", sub(`{"payload.name": "refunds"}`, "workflow.completed")),
		"beta": partner("beta", sub("", "task.*")),
	}}
	s := open(t, dir)
	plain := storetest.Open(t, store.Config{})

	env := withName(t, example(t, events.WorkflowCompleted, "evt-no-match"), "orders")
	before, plainBefore := s.Commands(), plain.Commands()
	_, err := s.InsertEvents(ctx, []events.Envelope{env})
	require.NoError(t, err)
	_, err = plain.InsertEvents(ctx, []events.Envelope{env})
	require.NoError(t, err)
	assert.Equal(t, plain.Commands()-plainBefore, s.Commands()-before, "no command beyond the insert")
	assert.Empty(t, deliveries(t, s, "acme"))
	assert.Empty(t, deliveries(t, s, "beta"))
}

func TestFanOutFailureFailsTheInsertAndItsRetryRestoresIt(t *testing.T) {
	ctx := context.Background()
	dir := &directory{err: errors.New("partners unavailable")}
	s := open(t, dir)
	env := example(t, events.WorkflowCompleted, "evt-crash")

	_, err := s.InsertEvents(ctx, []events.Envelope{env})
	require.ErrorContains(t, err, "partners unavailable")
	_, err = s.GetEvent(ctx, env.EventID)
	require.NoError(t, err, "the event is stored")
	require.ErrorContains(t, s.InsertEvent(ctx, env), "partners unavailable", "InsertEvent too")

	dir.set(map[string]outbox.Partner{"acme": partner("acme", sub("", "*"))}, nil)
	res, err := s.InsertEvents(ctx, []events.Envelope{env}) // the caller's retry
	require.NoError(t, err)
	assert.Equal(t, []string{env.EventID}, res.Duplicates)
	assert.Len(t, deliveries(t, s, "acme"), 1)

	// The sweeper's call for an event stored before a crash: the same
	// entry, not a second one.
	require.NoError(t, s.FanOutEvents(ctx, []events.Envelope{env}))
	assert.Len(t, deliveries(t, s, "acme"), 1)
}

func TestOperationalEventsNeverFeedThemselves(t *testing.T) {
	ctx := context.Background()
	dir := &directory{partners: map[string]outbox.Partner{
		"acme": partner("acme", sub("", "delivery.*")),
		"beta": partner("beta", sub("", "delivery.dead_lettered")),
	}}
	s := open(t, dir)

	// acme's endpoint is dead: its dead letter goes to beta, not to acme.
	dl := example(t, events.DeliveryDeadLettered, "evt-dl-acme")
	_, err := s.InsertEvents(ctx, []events.Envelope{dl})
	require.NoError(t, err)
	assert.Empty(t, deliveries(t, s, "acme"), "acme gets no event about its own deliveries")
	require.Len(t, deliveries(t, s, "beta"), 1)

	// beta is dead too: the dead letter of that delivery (an operational
	// event carrying an operational event) goes to no one, so acme and
	// beta do not feed each other.
	var p map[string]any
	require.NoError(t, json.Unmarshal(dl.Payload, &p))
	p["partnerId"], p["eventType"], p["outboxId"] = "beta", string(events.DeliveryDeadLettered), store.SubscriptionOutboxID(dl.EventID, "beta")
	second := dl
	second.EventID = "evt-dl-beta"
	second.Payload, _ = json.Marshal(p)
	_, err = s.InsertEvents(ctx, []events.Envelope{second})
	require.NoError(t, err)
	assert.Empty(t, deliveries(t, s, "acme"))
	assert.Len(t, deliveries(t, s, "beta"), 1)

	// A dead letter about beta of an ordinary event does reach acme.
	p["eventType"] = string(events.WorkflowCompleted)
	third := dl
	third.EventID = "evt-dl-beta-workflow"
	third.Payload, _ = json.Marshal(p)
	_, err = s.InsertEvents(ctx, []events.Envelope{third})
	require.NoError(t, err)
	assert.Len(t, deliveries(t, s, "acme"), 1)
	assert.Len(t, deliveries(t, s, "beta"), 1, "not to beta, which it is about")
}
