package replaybench_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/bus"
	"github.com/streamops/streamops/internal/history"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/testenv"
)

// replayBatch is the batch a replay reads, stores and publishes at once
// (the default), and the floor's.
const replayBatch = 500

// BenchmarkReplayThroughput compares a whole replay (Start, then RunDue
// until the session completes, at a rate the limiter never reaches) with
// its floor, storing and publishing the same events raw: the store's bulk
// insert into events (InsertEvents of fresh copies, so the same indexes
// are maintained) and a raw franz-go produce of their bytes, prebuilt,
// with the producer settings bus uses, replayBatch events at a time, the
// insert before the produce as a replay must. Each iteration seeds
// STREAMOPS_BENCH_REPLAY_EVENTS events (default 1,000; untimed), then
// runs both sides over them in rotating order on the same store and
// broker, so the collection's growth and a busy neighbour weigh on both.
// Its one sub-benchmark, replay-vs-floor, reports replay-events/s and
// floor-events/s; replay over floor is the performance table's row.
func BenchmarkReplayThroughput(b *testing.B) {
	b.Run("replay-vs-floor", func(b *testing.B) {
		n := testenv.EnvInt(b, "STREAMOPS_BENCH_REPLAY_EVENTS", 1000)
		ctx := context.Background()
		env := testenv.New(b, testenv.Options{})
		r := &history.Replayer{Store: env.Store, Emitter: env.Emitter, Logger: env.Logger}
		raw, err := kgo.NewClient(kgo.SeedBrokers(env.Brokers...), kgo.RequiredAcks(kgo.AllISRAcks()),
			kgo.ProducerLinger(0), kgo.ProducerBatchMaxBytes(int32(bus.DefaultMaxMessageBytes)),
			kgo.ProducerBatchCompression(bus.DefaultCompression.Codec())) // the replay's producer settings
		require.NoError(b, err)
		defer raw.Close()

		var replayTime, floorTime time.Duration
		timed := func(total *time.Duration, f func()) {
			start := time.Now()
			f()
			*total += time.Since(start)
		}
		b.ResetTimer()
		for i := range b.N {
			b.StopTimer()
			seeded, filter := seedHistory(b, env.Store, n)
			copies, recs := floorCopies(b, fmt.Sprint("floor-", i), seeded)
			b.StartTimer()
			sides := []func(){
				func() {
					timed(&replayTime, func() {
						rs := replayAll(ctx, b, r, env.Store, store.ReplayConfig{Filter: filter, BatchSize: replayBatch, RatePerSecond: 100_000})
						if rs.ReplayedEvents != int64(n) || rs.FailedEvents != 0 {
							b.Fatalf("replay %s: %d of %d replayed, %d failed: %+v", rs.Status, rs.ReplayedEvents, n, rs.FailedEvents, rs.Errors)
						}
					})
				},
				func() {
					timed(&floorTime, func() {
						for j := 0; j < n; j += replayBatch {
							k := min(n, j+replayBatch)
							if _, err := env.Store.InsertEvents(ctx, copies[j:k]); err != nil {
								b.Fatal(err)
							}
							if err := raw.ProduceSync(ctx, recs[j:k]...).FirstErr(); err != nil {
								b.Fatal(err)
							}
						}
					})
				},
			}
			for j := range sides {
				sides[(i+j)%len(sides)]()
			}
		}
		b.StopTimer()
		total := float64(n * b.N)
		b.ReportMetric(total/replayTime.Seconds(), "replay-events/s")
		b.ReportMetric(total/floorTime.Seconds(), "floor-events/s")
	})
}

// floorCopies are the floor's events: fresh copies of seeded (new ids,
// derived as a replay derives its copies', so the same work to store
// them), of an execution of their own so no replay of a seed selects them, and
// their records, prebuilt.
func floorCopies(tb testing.TB, run string, seeded []events.Envelope) ([]events.Envelope, []*kgo.Record) {
	copies, recs := make([]events.Envelope, len(seeded)), make([]*kgo.Record, len(seeded))
	for i, env := range seeded {
		env.EventID = events.DeriveID(events.EventIDPrefix, run, env.EventID)
		meta := *env.Metadata
		meta.CorrelationID = run
		env.Metadata = &meta
		copies[i] = env
		rec, err := bus.NewRecord(env, "")
		require.NoError(tb, err)
		recs[i] = rec
	}
	return copies, recs
}
