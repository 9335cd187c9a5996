package streamtest

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	lambdaevents "github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/stream"
	"github.com/streamops/streamops/internal/testenv"
)

// Harness is one processor as its Lambda wires it: a stream.Processor over
// the processor's service, dead-lettering to the store and the broker of a
// testenv.Env (kfake and the store of the engine under test). The task
// and workflow processors' tests build their harnesses on it.
type Harness struct {
	// Env is the broker, store, emitter and logger.
	Env *testenv.Env
	// Proc is the processor Deliver hands batches to; Use replaces it.
	Proc    *stream.Processor
	name    string
	topic   string
	timeout time.Duration
}

// NewHarness starts an Env for the processor called name (as its dead
// letters record it) that consumes topic, whose deliveries get timeout
// each (the deployed function's). Use gives it its service.
func NewHarness(tb testing.TB, name, topic string, timeout time.Duration) *Harness {
	tb.Helper()
	return &Harness{Env: testenv.New(tb, testenv.Options{}), name: name, topic: topic, timeout: timeout}
}

// Runtime is the runtime a service under test gets: the Env's emitter and
// logger, processor id worker-test, and clock.
func (h *Harness) Runtime(clock func() time.Time) stream.Runtime {
	return stream.Runtime{Emitter: h.Env.Emitter, ProcessorID: "worker-test", Clock: clock, Logger: h.Env.Logger}
}

// Use makes handler (the processor's service) the one batches go to.
func (h *Harness) Use(tb testing.TB, handler stream.Handler) {
	tb.Helper()
	proc, err := stream.New(stream.Config{Name: h.name, Handler: handler,
		DeadLetters: h.Env.Store, Publisher: h.Env.Bus, Logger: h.Env.Logger})
	require.NoError(tb, err)
	h.Proc = proc
}

// Deliver hands ev to the processor as one invocation of the deployed
// function's timeout.
func (h *Harness) Deliver(tb testing.TB, ev lambdaevents.KafkaEvent) error {
	tb.Helper()
	return h.DeliverWithin(tb, h.timeout, ev)
}

// DeliverWithin hands ev to the processor as one invocation that times out
// after d.
func (h *Harness) DeliverWithin(tb testing.TB, d time.Duration, ev lambdaevents.KafkaEvent) error {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	return h.Proc.HandleKafkaEvent(ctx, ev)
}

// Lifecycle is the events of one aggregate on the processor's topic, in
// order.
func (h *Harness) Lifecycle(tb testing.TB, aggregateID string) []events.Envelope {
	tb.Helper()
	return h.Env.Lifecycle(tb, h.topic, aggregateID)
}

// History is what the events collection holds of aggregateID, in the
// order GET /api/events?aggregate_id= lists it.
func (h *Harness) History(tb testing.TB, aggregateID string) []store.EventDocument {
	tb.Helper()
	docs, _, err := h.Env.Store.FindEvents(context.Background(), store.ReplayFilter{AggregateID: aggregateID}, nil, 1000)
	require.NoError(tb, err)
	return docs
}

// RequireConsumed checks that the history holds value, an event another
// producer put on the topic, as a consumed event: published already (the
// retry-sweeper leaves it be) and read back with every field it carries.
func (h *Harness) RequireConsumed(tb testing.TB, value []byte) {
	tb.Helper()
	var head struct {
		EventID string `json:"eventId"`
	}
	require.NoError(tb, json.Unmarshal(value, &head))
	doc, err := h.Env.Store.GetEvent(context.Background(), head.EventID)
	require.NoError(tb, err, "the consumed event %s is in the history", head.EventID)
	require.False(tb, doc.PublishPending, "the event is on its topic already")
	require.NotNil(tb, doc.PublishedAt)
	env, err := doc.Envelope()
	require.NoError(tb, err)
	again, err := json.Marshal(env)
	require.NoError(tb, err)
	require.JSONEq(tb, string(value), string(again), "every field the producer wrote is stored")
}

// RequireOneInsertForConsumed checks what storing consumed events costs a
// processor: recs, records of created events delivered as one batch to
// the harness fresh builds, cost exactly one store command more when
// their aggregates have no projection (own false: another producer's
// events, all of which the history then holds) than when they do (own
// true: StreamOps stored each aggregate before publishing its event, and
// the processor stores none of them again).
func RequireOneInsertForConsumed(t *testing.T, created events.Type, recs []*kgo.Record, fresh func(own bool) *Harness) {
	t.Helper()
	filter := store.ReplayFilter{EventTypes: []string{string(created)}}
	deliver := func(own bool) (commands, stored int64) {
		h := fresh(own)
		before := h.Env.Store.Commands()
		require.NoError(t, h.Deliver(t, Batch(recs...)))
		commands = h.Env.Store.Commands() - before
		stored, err := h.Env.Store.CountEvents(context.Background(), filter)
		require.NoError(t, err)
		return commands, stored
	}
	own, ownStored := deliver(true)
	foreign, foreignStored := deliver(false)
	require.Equal(t, own+1, foreign, "one insert for the batch's consumed events")
	require.Zero(t, ownStored, "StreamOps' own %s are not written again", created)
	require.EqualValues(t, len(recs), foreignStored)
}

// Documents is every document of an exportable collection, as the export
// writes it.
func (h *Harness) Documents(tb testing.TB, collection string) []json.RawMessage {
	tb.Helper()
	docs, err := h.Env.Store.ExportDocuments(context.Background(), store.ExportQuery{Collection: collection})
	require.NoError(tb, err)
	return docs
}

// DeadLetters is the stored dead letters q selects (its first page).
func (h *Harness) DeadLetters(tb testing.TB, q store.DeadLetterQuery) []store.DeadLetterEntry {
	tb.Helper()
	stored, _, err := h.Env.Store.ListDeadLetters(context.Background(), q)
	require.NoError(tb, err)
	return stored
}
