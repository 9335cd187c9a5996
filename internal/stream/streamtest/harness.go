package streamtest

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	lambdaevents "github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/stacktest"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/stream"
)

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
