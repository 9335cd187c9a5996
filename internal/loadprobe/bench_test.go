package loadprobe_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/internal/loadprobe"
	"github.com/streamops/streamops/internal/local"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/store/storetest"
	"github.com/streamops/streamops/internal/testenv"
)

// BenchmarkWebhookLatency is webhook latency under concurrent senders on
// an empty store and on a full one, on one local stack (internal/local,
// the whole system in one process as make run runs it, on a temporary
// data directory; the embedded engine, or MongoDB under
// STREAMOPS_TEST_ENGINE=mongodb). Each iteration starts a stack, sends
// templateWebhooks signed Stripe invoice.finalized deliveries and waits
// for their workflows (the fill's template), then the probe's 8 senders
// send STREAMOPS_BENCH_LATENCY_DELIVERIES (default 4,000, enough for the
// filled side to span a collection of its whole heap) deliveries; Fill then
// brings the store to STREAMOPS_BENCH_LATENCY_EVENTS events (default
// 200,000) and the same probe runs again. Each side starts on a store at
// rest (atRest). Its one sub-benchmark, senders=8, reports for each side
// (empty-, filled-) deliveries/s, p50-ms, p99-ms, rss-mb (the process's,
// after the side), data-mb (the data directory), compactions (how
// many the embedded store ran during the side: one on a full store writes
// the whole data, and comes once per its size's worth of journal) and
// compaction-s (how long those took, paced beside the side's commits),
// heap-mb and heap-mobjects (the live heap at the side's start, which
// every collection marks) and gc-cpu-pct (the collector's share of the
// process's CPU during the side), plus
// the events stored and how long the fill took (fill-s).
func BenchmarkWebhookLatency(b *testing.B) {
	deliveries := testenv.EnvInt(b, "STREAMOPS_BENCH_LATENCY_DELIVERIES", 4000)
	events := testenv.EnvInt(b, "STREAMOPS_BENCH_LATENCY_EVENTS", 200_000)
	b.Run("senders=8", func(b *testing.B) {
		ctx := context.Background()
		sides := map[string][]loadprobe.Report{}
		rss, data, compactions, compacting := map[string]float64{}, map[string]float64{}, map[string]float64{}, map[string]float64{}
		heapMB, heapObjects, gcShare := map[string]float64{}, map[string]float64{}, map[string]float64{}
		var fill time.Duration
		var stored int64
		for range b.N {
			b.StopTimer()
			dir := b.TempDir()
			s := startStack(b, dir, 0)
			// The collector as make run sets it for this stack.
			_, restore := local.TuneCollector(local.Config{MongoURI: s.Config().MongoURI, GOGC: os.Getenv("GOGC")})
			b.Cleanup(restore)
			kind, err := loadprobe.StripeInvoices(s.Providers(), s.WebhookSecret("stripe"))
			require.NoError(b, err)
			probe := &loadprobe.Probe{BaseURL: s.URL(), Kinds: []loadprobe.Kind{kind}, Senders: loadprobe.DefaultSenders}
			rep, err := probe.Run(ctx, templateWebhooks)
			require.NoError(b, err)
			require.Zero(b, rep.Errors(), "%s", rep)
			require.NoError(b, settle(ctx, s.Store()))
			tmpl, err := loadprobe.Capture(ctx, s.Store(), templateWebhooks)
			require.NoError(b, err)

			measure := func(side string) {
				heap := atRest(b, s)
				heapMB[side] += float64(heap.Bytes) / 1e6
				heapObjects[side] += float64(heap.Objects) / 1e6
				stop := profileSide(b, side)
				before, beforeTime := s.Compactions(), s.CompactionTime()
				cpu := loadprobe.ReadCPU()
				b.StartTimer()
				rep, err := probe.Run(ctx, deliveries)
				b.StopTimer()
				gcShare[side] += 100 * loadprobe.ReadCPU().GCShare(cpu)
				stop()
				ran := s.Compactions() - before
				compactions[side] += float64(ran)
				require.NoError(b, err)
				require.Zero(b, rep.Errors(), "%s: %s", side, rep)
				b.Logf("%s: %s, %d compactions", side, rep, ran)
				sides[side] = append(sides[side], rep)
				rss[side] += float64(loadprobe.RSS()) / 1e6
				data[side] += float64(loadprobe.DirSize(dir)) / 1e6
				require.NoError(b, settle(ctx, s.Store()))
				// A compaction the side set off counts whole, though it may
				// end after the side.
				compacted(b, s)
				compacting[side] += (s.CompactionTime() - beforeTime).Seconds()
			}
			measure("empty")
			filled, err := loadprobe.Fill(ctx, s.Store(), tmpl, events)
			require.NoError(b, err)
			fill += filled.Elapsed
			counts, err := s.Store().DocumentCounts(ctx)
			require.NoError(b, err)
			stored += counts[store.CollEvents]
			b.Logf("fill: %d copies of %d webhooks' documents in %s: %v", filled.Copies, templateWebhooks, filled.Elapsed.Round(time.Millisecond), counts)
			measure("filled")
			require.NoError(b, s.Shutdown(ctx))
		}
		for side, reps := range sides {
			var perSec, p50, p99 float64
			for _, r := range reps {
				perSec += r.PerSecond()
				p50 += float64(r.Percentile(0.50)) / float64(time.Millisecond)
				p99 += float64(r.Percentile(0.99)) / float64(time.Millisecond)
			}
			n := float64(len(reps))
			b.ReportMetric(perSec/n, side+"-deliveries/s")
			b.ReportMetric(p50/n, side+"-p50-ms")
			b.ReportMetric(p99/n, side+"-p99-ms")
			b.ReportMetric(rss[side]/n, side+"-rss-mb")
			b.ReportMetric(data[side]/n, side+"-data-mb")
			b.ReportMetric(compactions[side]/n, side+"-compactions")
			b.ReportMetric(compacting[side]/n, side+"-compaction-s")
			b.ReportMetric(heapMB[side]/n, side+"-heap-mb")
			b.ReportMetric(heapObjects[side]/n, side+"-heap-mobjects")
			b.ReportMetric(gcShare[side]/n, side+"-gc-cpu-pct")
		}
		b.ReportMetric(float64(stored)/float64(b.N), "filled-events")
		b.ReportMetric(fill.Seconds()/float64(b.N), "fill-s")
	})
}

// atRest waits for a compaction under way (the embedded store writing its
// journal into a snapshot, as the fill's writes set off) and then collects
// the heap, so that each side starts on a store at rest: a compaction
// comes once per data size's worth of writes (BenchmarkSnapshot measures
// it), and the collections the side's own allocation sets off are in its
// figures, the ones left by the fill are not.
func atRest(tb testing.TB, s *local.Stack) loadprobe.Heap {
	tb.Helper()
	compacted(tb, s)
	return loadprobe.ReadHeap()
}

// compacted waits for a compaction of the embedded store under way to end.
func compacted(tb testing.TB, s *local.Stack) {
	tb.Helper()
	testenv.Eventually(tb, 5*time.Minute, func() bool { return !s.Compacting() }, "the store still compacts")
}

// profileSide, when STREAMOPS_BENCH_PROFILE_DIR names a directory, writes
// a side's CPU profile (cpu-SIDE.pb.gz) and the heap's before and after it
// (heap-SIDE.pb.gz, heap-SIDE-end.pb.gz: the live heap the collector
// marks, and with -diff_base what the side allocated); the returned func
// ends it.
func profileSide(b *testing.B, side string) (stop func()) {
	dir := os.Getenv("STREAMOPS_BENCH_PROFILE_DIR")
	if dir == "" {
		return func() {}
	}
	heap := func(name string) {
		runtime.GC()
		f, err := os.Create(filepath.Join(dir, name))
		require.NoError(b, err)
		defer f.Close()
		require.NoError(b, pprof.WriteHeapProfile(f))
	}
	heap("heap-" + side + ".pb.gz")
	cpu, err := os.Create(filepath.Join(dir, "cpu-"+side+".pb.gz"))
	require.NoError(b, err)
	require.NoError(b, pprof.StartCPUProfile(cpu))
	return func() {
		pprof.StopCPUProfile()
		require.NoError(b, cpu.Close())
		heap("heap-" + side + "-end.pb.gz")
	}
}

// templateWebhooks is how many real deliveries the fill's template holds.
const templateWebhooks = 20

// settle waits up to a minute for the deliveries' work to end.
func settle(ctx context.Context, s *store.Store) error {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	return loadprobe.Settle(ctx, s)
}

// fillTimeout is the stack's store operation timeout: on today's
// embedded engine an insert copies its collection, so past some 25,000
// events the fill's bulk writes outlast make run's default (5 s and
// store.BulkTimeoutPerDocument a document). A delivery slower than the
// default, a 503 under make run, shows in p99.
const fillTimeout = 2 * time.Minute

// startStack starts the local stack on dir, on the test engine, with
// make run's schedules (every, when not zero, for the outbox-relay and the
// retry-sweeper) and its logs at warn, discarded (a line per delivery
// would measure the terminal); stopped when the test ends.
func startStack(tb testing.TB, dir string, every time.Duration) *local.Stack {
	tb.Helper()
	db := storetest.Configure(tb, store.Config{})
	s, err := local.Start(context.Background(), local.Config{DataDir: dir, HTTPAddr: "127.0.0.1:0", KafkaAddr: "127.0.0.1:0",
		MongoURI: db.URI, Database: db.Database, LogOutput: io.Discard, LogLevel: "warn", StoreOperationTimeout: fillTimeout,
		ScheduleInterval: every, Getenv: func(string) string { return "" }})
	require.NoError(tb, err)
	tb.Cleanup(func() { _ = s.Shutdown(context.Background()) })
	return s
}
