package streamtest

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	lambdaevents "github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/stacktest"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/stream"
	"github.com/streamops/streamops/internal/stream/deadletterstatus"
)

// Clock is a processor's clock under test: it starts at
// 2026-01-04T01:10:00Z and moves step with every reading, so durations are
// positive and reproducible; Advance moves it further.
type Clock struct {
	mu   sync.Mutex
	t    time.Time
	step time.Duration
}

// NewClock starts a clock that moves step per reading.
func NewClock(step time.Duration) *Clock {
	return &Clock{t: time.Date(2026, 1, 4, 1, 10, 0, 0, time.UTC), step: step}
}

// Now moves the clock one step and reads it.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(c.step)
	return c.t
}

// Advance moves the clock forward by d.
func (c *Clock) Advance(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

// Harness is one processor as its Lambda wires it: a stream.Processor over
// the processor's service, dead-lettering to the store and the broker of a
// stacktest.Env (kfake and the store of the engine under test). The task
// and workflow processors' tests build their harnesses on it.
type Harness struct {
	// Env is the broker, store, emitter and logger.
	Env *stacktest.Env
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
	return &Harness{Env: stacktest.New(tb, stacktest.Options{}), name: name, topic: topic, timeout: timeout}
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

// PoisonCase is one processor's side of its poison test: the harness, and
// the *.created event of the one aggregate behind the poison, submitted
// through the API.
type PoisonCase struct {
	// Harness runs the processor.
	Harness *Harness
	// Valid builds the aggregate's *.created payload with its free-form
	// JSON set to data (nil: as it is), as Poison.Before takes it.
	Valid func(data json.RawMessage) events.Payload
	// Submit stores the projections of the batch's *.created events, as
	// the API did before publishing them.
	Submit func(ev lambdaevents.KafkaEvent)
	// Status is the aggregate's stored status.
	Status func() string
	// Completed is the status it ends in.
	Completed string
}

// RunPoisons runs every kind of Poisons as a subtest: setup builds the
// processor's case from a generator of the given seed, and the poison
// record goes just before the aggregate's valid *.created on its key. The
// poison never fails its batch, the aggregate behind it completes, and the
// poison is one visible dead letter carrying its reason and error.
func RunPoisons(t *testing.T, seed byte, setup func(t *testing.T, g *Gen) PoisonCase) {
	for _, kind := range Poisons {
		t.Run(kind.Name, func(t *testing.T) {
			g := NewGen(seed)
			c := setup(t, g)
			good := g.Record(t, g.Envelope(t, c.Valid(nil), APIMetadata))
			poison := kind.Before(t, g, good, c.Valid)
			c.Submit(Batch(good))

			require.NoError(t, c.Harness.Deliver(t, Batch(poison, good)), "a poison record never fails its batch")
			assert.Equal(t, c.Completed, c.Status(), "the aggregate behind it on the same key completes")
			stored := c.Harness.DeadLetters(t, store.DeadLetterQuery{Status: deadletterstatus.Open})
			require.Len(t, stored, 1, "the poison record is a visible dead letter")
			assert.NotEmpty(t, stored[0].Reason)
			assert.NotEmpty(t, stored[0].Error)
		})
	}
}
