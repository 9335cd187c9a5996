package testenv

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/bus"
	"github.com/streamops/streamops/internal/emit"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/store/storetest"
)

// Env is a running broker, store, producer and emitter.
type Env struct {
	Cluster *kfake.Cluster
	Brokers []string
	Store   *store.Store
	Bus     *bus.Client
	Emitter *emit.Emitter
	Logger  *slog.Logger
}

// Options tune New.
type Options struct {
	// Store is the store configuration, on the engine storetest selects
	// (default: the embedded engine in memory).
	Store store.Config
	// PublishTimeout bounds the emitter's inline publish. Default 10 s, so
	// a test that expects its publish to succeed does not see it time out
	// on a loaded machine (the race run on two cores) and leave the event
	// unmarked; a test that stops the broker sets a short one so the stop
	// costs it little time.
	PublishTimeout time.Duration
}

// New starts an Env; everything is closed when the test ends.
func New(tb testing.TB, opts Options) *Env {
	tb.Helper()
	ctx := context.Background()
	cluster := Broker(tb)
	e := &Env{Cluster: cluster, Brokers: cluster.ListenAddrs(), Logger: slog.New(slog.DiscardHandler)}

	var err error
	e.Bus, err = bus.New(bus.Config{Brokers: e.Brokers, ProduceTimeout: 2 * time.Second, DialTimeout: time.Second})
	require.NoError(tb, err)
	tb.Cleanup(e.Bus.Close)
	require.NoError(tb, e.Bus.EnsureTopics(ctx))

	// A test clock keeps what it stores (storetest.Configure).
	e.Store = storetest.Open(tb, opts.Store)

	if opts.PublishTimeout == 0 {
		opts.PublishTimeout = 10 * time.Second
	}
	e.Emitter, err = emit.New(emit.Config{Store: e.Store, Publisher: e.Bus, PublishTimeout: opts.PublishTimeout, Logger: e.Logger})
	require.NoError(tb, err)
	return e
}

// CreateTopic creates a topic of 3 partitions (replay targets, say).
func (e *Env) CreateTopic(tb testing.TB, topic string) {
	tb.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(e.Brokers...))
	require.NoError(tb, err)
	defer cl.Close()
	_, err = kadm.NewClient(cl).CreateTopic(context.Background(), 3, 1, nil, topic)
	require.NoError(tb, err)
}

// StopBroker shuts the broker down: publishes fail from now on.
func (e *Env) StopBroker() { e.Cluster.Close() }

// Records reads every record of topic from the beginning (up to the end
// offsets at the time of the call).
func (e *Env) Records(tb testing.TB, topic string) []*kgo.Record {
	tb.Helper()
	return ReadAll(tb, e.Brokers, 30*time.Second, topic)
}

// Envelopes decodes the records of topic as its consumers read them
// (events.Consumed), failing the test on a bad one.
func (e *Env) Envelopes(tb testing.TB, topic string) []events.Envelope {
	tb.Helper()
	recs := e.Records(tb, topic)
	out := make([]events.Envelope, len(recs))
	for i, r := range recs {
		env, err := events.Consumed.Decode(r.Value)
		require.NoError(tb, err, "record %d of %s", i, topic)
		out[i] = env
	}
	return out
}

// Lifecycle is the events of one aggregate (a workflow, a task) on topic,
// in order.
func (e *Env) Lifecycle(tb testing.TB, topic, aggregateID string) []events.Envelope {
	tb.Helper()
	var out []events.Envelope
	for _, env := range e.Envelopes(tb, topic) {
		if env.AggregateID() == aggregateID {
			out = append(out, env)
		}
	}
	return out
}
