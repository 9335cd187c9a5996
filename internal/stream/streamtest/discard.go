package streamtest

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/emit"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/stream"
	"github.com/streamops/streamops/internal/tracing"
)

// Discard is an emitter, dead-letter store and dead-letter publisher that
// keep nothing, and stores consumed events and settles webhook events
// nowhere: what the processors' processor-only benchmarks run against,
// each embedding it in a stand-in for its own store.
type Discard struct{}

// Emit emits nothing.
func (Discard) Emit(context.Context, ...events.Envelope) (emit.Result, error) {
	return emit.Result{}, nil
}

// InsertDeadLetters stores nothing.
func (Discard) InsertDeadLetters(context.Context, ...store.DeadLetterEntry) (store.InsertResult, error) {
	return store.InsertResult{}, nil
}

// PublishRecords publishes nothing.
func (Discard) PublishRecords(context.Context, []*kgo.Record) error { return nil }

// InsertConsumedEvents stores nothing.
func (Discard) InsertConsumedEvents(context.Context, []events.Envelope) (store.InsertResult, error) {
	return store.InsertResult{}, nil
}

// SettleWebhookEvents settles nothing.
func (Discard) SettleWebhookEvents(context.Context, ...store.WebhookOutcome) (int, error) {
	return 0, nil
}

// DiscardRuntime is the runtime of a service under a processor-only
// benchmark: it emits into Discard and logs nowhere.
func DiscardRuntime() stream.Runtime {
	return stream.Runtime{Emitter: Discard{}, Logger: slog.New(slog.DiscardHandler)}
}

// BenchProcessorOnly runs b.N batches of n records, each through the
// processor called name over the handler round builds (with the timer
// stopped), dead-lettering into Discard, and reports records per second:
// the processor's own share of a batch's cost. Its logs go nowhere.
func BenchProcessorOnly(b *testing.B, name string, n int, round func(b *testing.B, i int) (stream.Handler, []*kgo.Record)) {
	benchProcessorOnly(b, name, n, round, slog.New(slog.DiscardHandler))
}

// benchProcessorOnly is BenchProcessorOnly logging to log.
func benchProcessorOnly(b *testing.B, name string, n int, round func(b *testing.B, i int) (stream.Handler, []*kgo.Record), log *slog.Logger) {
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		handler, recs := round(b, i)
		proc, err := stream.New(stream.Config{Name: name, Handler: handler, DeadLetters: Discard{}, Publisher: Discard{},
			Logger: log})
		require.NoError(b, err)
		ev := Batch(recs...)
		b.StartTimer()
		if err := proc.HandleKafkaEvent(context.Background(), ev); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*n)/b.Elapsed().Seconds(), "records/s")
}

// BenchProcessorVariants runs the variants every processor benchmark
// reports, so they stay comparable: "batch=N" (the n records of each round
// in one invocation), "baseline=one-at-a-time" (one record per invocation),
// "batch=N,processor-only" (the processor called name over the handler
// only builds, against a store and emitter that discard) and the same
// writing its JSON log lines, seed 003's "Event processed" of every record
// among them, to io.Discard ("batch=N,processor-only,logged"): the cost
// of formatting them.
func BenchProcessorVariants(b *testing.B, name string, n int, round func(b *testing.B, i int) Round, only func(b *testing.B, i int) (stream.Handler, []*kgo.Record)) {
	batch := fmt.Sprintf("batch=%d", n)
	b.Run(batch, func(b *testing.B) { BenchProcessor(b, n, n, round) })
	b.Run("baseline=one-at-a-time", func(b *testing.B) { BenchProcessor(b, n, 1, round) })
	b.Run(batch+",floor", func(b *testing.B) { BenchProcessorFloor(b, n, round) })
	b.Run(batch+",processor-only", func(b *testing.B) { BenchProcessorOnly(b, name, n, only) })
	b.Run(batch+",processor-only,logged", func(b *testing.B) {
		benchProcessorOnly(b, name, n, only, slog.New(tracing.LogHandler(slog.NewJSONHandler(io.Discard, nil))))
	})
}
