package streamtest

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/bus"
	"github.com/streamops/streamops/internal/store"
)

// BenchProcessorFloor compares a processor's batch with the engine's
// floor for the same work. Each of b.N rounds builds two rounds of n
// records alike (each on a fresh store and broker): the first one's
// records go to the processor as one invocation; the second one's store
// then takes every event the first stored, as one bulk insert into the same
// collection and indexes, and its broker every record the first produced,
// as one produce. It reports records/s of both, and their ratio: what the
// processor adds to the writes it cannot avoid.
func BenchProcessorFloor(b *testing.B, n int, round func(b *testing.B, i int) Round) {
	ctx := context.Background()
	var batchTime, floorTime time.Duration
	var stored, produced int
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		r, f := round(b, i), round(b, i)
		require.NotNil(b, r.Env, "the floor needs the round's Env")
		start := time.Now()
		require.NoError(b, r.Deliver(b, Batch(r.Records...)))
		batchTime += time.Since(start)

		envs, recs := floorWork(b, r)
		stored, produced = len(envs), len(recs)
		start = time.Now()
		if _, err := f.Env.Store.InsertEvents(ctx, envs); err != nil {
			b.Fatal(err)
		}
		if err := f.Env.Bus.PublishRecords(ctx, recs); err != nil {
			b.Fatal(err)
		}
		floorTime += time.Since(start)
	}
	records := float64(b.N * n)
	// The timer ran for neither side: ns/op would say nothing.
	b.ReportMetric(0, "ns/op")
	b.ReportMetric(records/batchTime.Seconds(), "batch-records/s")
	b.ReportMetric(records/floorTime.Seconds(), "floor-records/s")
	b.ReportMetric(floorTime.Seconds()/batchTime.Seconds(), "batch/floor")
	b.ReportMetric(float64(stored)/float64(n), "events/record")
	b.ReportMetric(float64(produced)/float64(n), "produced/record")
}

// floorWork is what r's batch left for the floor to do again: the events
// it stored (every event it produced, and the records it consumed where it
// stored them too) and fresh copies of the records it produced, on every
// StreamOps topic. It fails when these are not every event in r's store.
func floorWork(tb testing.TB, r Round) ([]events.Envelope, []*kgo.Record) {
	tb.Helper()
	var envs []events.Envelope
	var recs []*kgo.Record
	for _, t := range bus.Topics() {
		for _, rec := range r.Env.Records(tb, t.Name) {
			env, err := events.Consumed.Decode(rec.Value)
			require.NoError(tb, err)
			envs = append(envs, env)
			recs = append(recs, &kgo.Record{Topic: rec.Topic, Key: rec.Key, Value: rec.Value, Headers: rec.Headers})
		}
	}
	// The batch's work is done only when its marks are: an event left
	// pending is the sweeper's to publish again.
	pending, err := r.Env.Store.UnpublishedEvents(context.Background(), time.Now().Add(time.Hour), 1)
	require.NoError(tb, err)
	require.Empty(tb, pending, "the batch left events unpublished (its mark failed)")
	held, err := r.Env.Store.CountEvents(context.Background(), store.ReplayFilter{})
	require.NoError(tb, err)
	if int(held) == len(envs)+len(r.Records) {
		for _, rec := range r.Records {
			env, err := events.Consumed.Decode(rec.Value)
			require.NoError(tb, err)
			envs = append(envs, env)
		}
	}
	require.EqualValues(tb, held, len(envs), "the batch's store holds events the floor would not store")
	return envs, recs
}
