package main

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/internal/bus"
)

const sample = `goos: linux
BenchmarkWebhookThroughput/floor-2         	       2	 112632598 ns/op	      4439 deliveries/s
BenchmarkWebhookThroughput/handler-2       	{"time":"2026-11-24T08:10:56Z","level":"INFO","msg":"cold start"}
       2	2873465512 ns/op	         4.000 commands/delivery	       174.0 deliveries/s
BenchmarkProduce/bus-2        	      10	  19312877 ns/op	      1925 ns/record	    519573 records/s	 5967710 B/op	    1353 allocs/op
BenchmarkProduce/raw-vs-bus-2   	      30	  17331277 ns/op	    674357 bus-decoded-records/s	    958041 bus-records/s	   1603964 raw-records/s
BenchmarkReplayThroughput/replay-vs-floor-2   	       3	 8128499351 ns/op	       694.6 floor-events/s	       381.0 replay-events/s
BenchmarkWebhookDuringReplay/p99-2         	       1	22558571915 ns/op	        74.32 p99-none-ms	      1381 p99-replay-ms	       275.0 replay-events/s
BenchmarkRelay/partners=1-2         	       5	 588976766 ns/op	         1.112 commands/entry	       848.9 entries/s
BenchmarkRelay/partners=10-2        	       5	 690280979 ns/op	         1.382 commands/entry	       724.3 entries/s
BenchmarkWorkflowProcessor/batch=1000,floor-2   	       1	       618.5 batch-records/s	         0.7475 batch/floor	         5.000 events/record	       827.4 floor-records/s	         5.000 produced/record
BenchmarkTaskProcessor/batch=1000,floor-2   	{"level":"WARN","msg":"a log line between the name and the figures"}
       3	      1845 batch-records/s	         0.5516 batch/floor
3 of 5 steps done
PASS
`

func TestParseReadsEveryMetricOfABenchmarkLine(t *testing.T) {
	got := parse(strings.NewReader(sample))
	assert.Equal(t, map[string]result{
		"BenchmarkWebhookThroughput/floor":          {"ns/op": 112632598, "deliveries/s": 4439},
		"BenchmarkWebhookThroughput/handler":        {"ns/op": 2873465512, "commands/delivery": 4, "deliveries/s": 174},
		"BenchmarkProduce/bus":                      {"ns/op": 19312877, "ns/record": 1925, "records/s": 519573, "B/op": 5967710, "allocs/op": 1353},
		"BenchmarkProduce/raw-vs-bus":               {"ns/op": 17331277, "bus-decoded-records/s": 674357, "bus-records/s": 958041, "raw-records/s": 1603964},
		"BenchmarkReplayThroughput/replay-vs-floor": {"ns/op": 8128499351, "floor-events/s": 694.6, "replay-events/s": 381},
		"BenchmarkWebhookDuringReplay/p99":          {"ns/op": 22558571915, "p99-none-ms": 74.32, "p99-replay-ms": 1381, "replay-events/s": 275},
		"BenchmarkRelay/partners=1":                 {"ns/op": 588976766, "commands/entry": 1.112, "entries/s": 848.9},
		"BenchmarkRelay/partners=10":                {"ns/op": 690280979, "commands/entry": 1.382, "entries/s": 724.3},
		// A benchmark that reports 0 ns/op (Go then leaves it out) has
		// figures all the same.
		"BenchmarkWorkflowProcessor/batch=1000,floor": {"batch-records/s": 618.5, "batch/floor": 0.7475, "events/record": 5,
			"floor-records/s": 827.4, "produced/record": 5},
		"BenchmarkTaskProcessor/batch=1000,floor": {"batch-records/s": 1845, "batch/floor": 0.5516},
	}, got)
}

func TestTableStatesEachRatioAgainstItsGoal(t *testing.T) {
	var tb table
	tb.build(map[string]map[string]result{"embedded": parse(strings.NewReader(sample))}, []string{"embedded"},
		map[string]int64{"webhook": 14_000_000})
	var out bytes.Buffer
	tb.print(&out)
	for _, want := range []string{
		"| store commands per accepted webhook | embedded | 4.000 commands/delivery | 4.000 | ≤ 3.000 | no |",
		"| webhook handler / floor (1 raw insert + 1 raw produce) | embedded | 174 vs 4,439 deliveries/s | 0.04 | ≥ 0.5 | no |",
		"| produce path (bus) / raw franz-go, same records and settings | kfake | 958,041 bus-records/s vs 1,603,964 raw-records/s | 0.60 | ≥ 0.8 | no |",
		"| produce path, events decoded from JSON (sweeper, replays) / raw franz-go | kfake | 674,357 vs 1,603,964 records/s | 0.42 | - | - |",
		"| stripped arm64 bootstrap: webhook | - | 14.0 MB | 14.0 | ≤ 15 | yes |",
		"| replay / floor (bulk insert + raw produce of the same events) | embedded | 381 replay-events/s vs 695 floor-events/s | 0.55 | ≥ 0.8 | no |",
		"| webhook p99 during a replay at its default rate / with none | embedded | 1381 vs 74 ms (replay kept 275 events/s) | 18.6 | - | - |",
		"| outbox relay, 500 entries over 10 partners / to one partner | embedded | 724 vs 849 entries/s | 0.85 | ≥ 0.8 | yes |",
	} {
		require.Contains(t, out.String(), want)
	}
}

func TestBenchLinesPassesResultsAndFailuresNotLogs(t *testing.T) {
	var out bytes.Buffer
	w := &benchLines{w: &out}
	for _, chunk := range []string{"BenchmarkProduce/bus-2 \t", "{\"level\":\"INFO\"}\n", "10\t19312877 ns/op\n", "ok  \tpkg\t1s\n"} {
		_, err := w.Write([]byte(chunk))
		require.NoError(t, err)
	}
	assert.Equal(t, "BenchmarkProduce/bus\t1.9312877e+07 ns/op\nok  \tpkg\t1s\n", out.String(),
		"a result whose name and figures a log line split is put back together; the log is left out")
}

func TestBenchLinesPassesAFailuresWholeReport(t *testing.T) {
	var out bytes.Buffer
	w := &benchLines{w: &out}
	in := strings.Join([]string{
		"--- FAIL: BenchmarkWebhookLatency/senders=8",
		"    bench_test.go:81: ",
		"        \tError Trace:\t/x/bench_test.go:81",
		"        \tError:      \tShould be zero, but was 1303",
		"        \tMessages:   \tempty: 4000 deliveries, 1303 errors (503 ×1303)",
		"{\"level\":\"INFO\",\"msg\":\"a log line\"}",
		"        \tnot a failure's: it follows a log line",
		"FAIL",
		"",
	}, "\n")
	_, err := w.Write([]byte(in))
	require.NoError(t, err)
	for _, want := range []string{"Should be zero, but was 1303", "(503 ×1303)", "Error Trace", "--- FAIL", "\nFAIL\n"} {
		assert.Contains(t, out.String(), want)
	}
	for _, not := range []string{"a log line", "not a failure's"} {
		assert.NotContains(t, out.String(), not)
	}
}

func TestTheReplayAtScaleIsARowOfMongoDB(t *testing.T) {
	out := "=== RUN   TestReplayAtScale\n" +
		"    scale_test.go:56: scale: events=100000 seed-s=239.0 seed-events/s=418 replay-s=332.0 replay-events/s=301\n" +
		"--- PASS: TestReplayAtScale (575.10s)\n"
	res, ok := scaleFigures(out)
	require.True(t, ok)
	assert.Equal(t, result{"events": 100000, "seed-s": 239, "seed-events/s": 418, "replay-s": 332, "replay-events/s": 301}, res)
	_, ok = scaleFigures("--- SKIP: TestReplayAtScale (0.00s)\n")
	assert.False(t, ok, "a run without its figures")

	var tb table
	tb.build(map[string]map[string]result{"embedded": {}, "mongodb": {scaleResult: res}}, []string{"embedded", "mongodb"}, nil)
	var table bytes.Buffer
	tb.print(&table)
	assert.Contains(t, table.String(), "| replay of 100,000 events, unlimited rate / their bulk insert | mongodb | "+
		"replayed in 5 min 32 s (301 events/s), inserted in 3 min 59 s (418 events/s) | 0.72 | - | - |")
}

func TestTheWebhookLatencyRowsCompareTheFilledStoreWithTheEmptyOne(t *testing.T) {
	line := "BenchmarkWebhookLatency/senders=8-2 \t 1\t27913652009 ns/op\t 5.034 empty-data-mb\t 45.75 empty-deliveries/s\t 148.2 empty-p50-ms\t 675.6 empty-p99-ms\t" +
		" 79.22 empty-rss-mb\t 80.78 fill-s\t 28.69 filled-data-mb\t 40.00 filled-deliveries/s\t 200000 filled-events\t 509.7 filled-p50-ms\t 810.7 filled-p99-ms\t 382.1 filled-rss-mb\n"
	res := parse(strings.NewReader(line))
	require.Contains(t, res, latencyBench)
	var tb table
	tb.build(map[string]map[string]result{"embedded": res, "mongodb": {}}, []string{"embedded", "mongodb"}, nil)
	var out bytes.Buffer
	tb.print(&out)
	for _, want := range []string{
		"| webhook throughput at 8 senders (local stack), 200,000 events / empty store | embedded | 40.0 vs 45.8 deliveries/s | 0.87 | ≥ 0.8 | yes |",
		"| webhook p99 at 8 senders (local stack), 200,000 events / empty store | embedded | 811 vs 676 ms | 1.20 | ≤ 1.25 | yes |",
		"| webhook p99 at 8 senders (local stack), empty store | embedded | 676 empty-p99-ms | 676 | ≤ 100 | no |",
		"| webhook at 8 senders (local stack): p50, RSS, data, heap, empty → 200,000 events | embedded | p50 148 → 510 ms, RSS 79 → 382 MB, data 5 → 29 MB (filled in 1 min 21 s) | - | - | - |",
		"| webhook throughput at 8 senders (local stack), a filled store / empty store | mongodb | not measured | - | ≥ 0.8 | - |",
		"| webhook p99 at 8 senders (local stack), a filled store / empty store | mongodb | not measured | - | ≤ 1.25 | - |",
	} {
		assert.Contains(t, out.String(), want)
	}
	assert.NotContains(t, out.String(), "| webhook p99 at 8 senders (local stack), empty store | mongodb", "the 100 ms goal is the embedded engine's")
	assert.NotContains(t, out.String(), "compactions", "a run that did not count them")

	counted := parse(strings.NewReader(strings.TrimSuffix(line, "\n") + "\t 3.000 empty-compactions\t 1.000 filled-compactions\n"))
	tb = table{}
	tb.build(map[string]map[string]result{"embedded": counted, "mongodb": {}}, []string{"embedded", "mongodb"}, nil)
	out.Reset()
	tb.print(&out)
	assert.Contains(t, out.String(), "data 5 → 29 MB (filled in 1 min 21 s), compactions 3 → 1 | - | - | - |")
	assert.NotContains(t, out.String(), "live heap", "a run that did not read it")

	heap := parse(strings.NewReader(strings.TrimSuffix(line, "\n") + "\t 3.000 empty-compactions\t 1.000 filled-compactions" +
		"\t 61.2 empty-heap-mb\t 0.512 empty-heap-mobjects\t 14.7 empty-gc-cpu-pct\t 1210 filled-heap-mb\t 9.61 filled-heap-mobjects\t 22.4 filled-gc-cpu-pct\n"))
	tb = table{}
	tb.build(map[string]map[string]result{"embedded": heap, "mongodb": {}}, []string{"embedded", "mongodb"}, nil)
	out.Reset()
	tb.print(&out)
	assert.Contains(t, out.String(), "compactions 3 → 1, live heap 61 → 1210 MB (0.5 → 9.6 M objects), collector 15 → 22 % of the CPU | - | - | - |")
}

func TestThePartitionsRowComparesTwelvePartitionsWithThree(t *testing.T) {
	line := "BenchmarkPartitionScaling/3-vs-12-2 \t 1\t6756991391 ns/op\t 882.5 p12-records/s\t 73.54 p12-records/s/partition\t 147.1 p12-workflows/s\t" +
		" 1512 p3-records/s\t 504.0 p3-records/s/partition\t 252.0 p3-workflows/s\n"
	res := parse(strings.NewReader(line))
	require.Contains(t, res, partitionsBench)
	var tb table
	tb.build(map[string]map[string]result{"embedded": res, "mongodb": {}}, []string{"embedded", "mongodb"}, nil)
	var out bytes.Buffer
	tb.print(&out)
	for _, want := range []string{
		"| workflow-processor records/s, 12 partitions / 3 (local stack, same load) | embedded | 882 vs 1,512 records/s (73.5 vs 504 a partition) | 0.58 | > 1 | no |",
		"| workflow-processor records/s, 12 partitions / 3 (local stack, same load) | mongodb | not measured | - | > 1 | - |",
	} {
		assert.Contains(t, out.String(), want)
	}
}

func TestTheProcessorGoalRowComparesTheBatchWithTheEnginesFloor(t *testing.T) {
	lines := "BenchmarkWorkflowProcessor/batch=1000-2 \t 3\t2114086900 ns/op\t 0.03600 commands/record\t 473.0 records/s\n" +
		"BenchmarkWorkflowProcessor/batch=1000,floor-2 \t 3\t 460.1 batch-records/s\t 0.4538 batch/floor\t 5.000 events/record\t 1014 floor-records/s\t 5.000 produced/record\n" +
		"BenchmarkWorkflowProcessor/batch=1000,processor-only-2 \t 3\t 222000000 ns/op\t 4501 records/s\n"
	res := parse(strings.NewReader(lines))
	var tb table
	tb.build(map[string]map[string]result{"embedded": res, "mongodb": {}}, []string{"embedded", "mongodb"}, nil)
	var out bytes.Buffer
	tb.print(&out)
	for _, want := range []string{
		"| workflow processor, batch of 1,000 / floor (bulk insert of its events + produce of its records) | embedded | 460 batch-records/s vs 1,014 floor-records/s | 0.45 | ≥ 0.8 | no |",
		"| workflow processor, batch of 1,000 / floor (bulk insert of its events + produce of its records) | mongodb | not measured | - | ≥ 0.8 | - |",
		"| workflow processor, batch of 1,000 / processor-only (store and emitter discard) | embedded | 473 vs 4,501 records/s | 0.11 | - | - |",
		"| task processor, batch of 1,000 / floor (bulk insert of its events + produce of its records) | embedded | not measured | - | ≥ 0.8 | - |",
	} {
		assert.Contains(t, out.String(), want)
	}
}

// TestCompressionRowIsTheDefaultCodecAgainstNone: the row states the
// producer's codec's bytes on the wire over none's, its produce rate over
// none's beside it, and is not measured without the benchmark.
func TestCompressionRowIsTheDefaultCodecAgainstNone(t *testing.T) {
	const line = `BenchmarkCompression/codecs-2         	      30	  89001145 ns/op	        55.28 gzip-bytes/record	       948.0 gzip-decompress-ns/record	     53583 gzip-records/s	         0.1020 gzip/none-bytes	         0.9163 gzip/none-records/s	        84.93 lz4-bytes/record	       370.6 lz4-decompress-ns/record	     56891 lz4-records/s	         0.1567 lz4/none-bytes	         0.9728 lz4/none-records/s	       541.8 none-bytes/record	        35.31 none-decompress-ns/record	     58478 none-records/s	        93.18 snappy-bytes/record	       197.0 snappy-decompress-ns/record	     62540 snappy-records/s	         0.1720 snappy/none-bytes	         1.069 snappy/none-records/s	        50.90 zstd-bytes/record	       514.1 zstd-decompress-ns/record	     50857 zstd-records/s	         0.09395 zstd/none-bytes	         0.8697 zstd/none-records/s
`
	var tb table
	tb.compression(parse(strings.NewReader(line)))
	tb.compression(map[string]result{})
	var out bytes.Buffer
	tb.print(&out)
	assert.Contains(t, out.String(), "| record bytes on the wire, "+string(bus.DefaultCompression)+" / none (batches of 1,000 workflow lifecycle events) | kfake | ")
	if bus.DefaultCompression == bus.CompressionZstd {
		assert.Contains(t, out.String(), "| kfake | 50.9 vs 541.8 bytes/record; produce 50,857 vs 58,478 records/s (0.87) | 0.094 | ≤ 0.5 | yes |")
	}
	assert.Contains(t, out.String(), "| kfake | not measured | - | ≤ 0.5 | - |")
}

// TestMakeBenchRunsEveryBenchmarkTheTableReads builds the table from no
// results, collecting the benchmarks its rows read, and matches each
// against the -bench pattern goBench runs, level by level as go test
// does, so a row cannot stay "not measured" because its benchmark is left
// out of the run.
func TestMakeBenchRunsEveryBenchmarkTheTableReads(t *testing.T) {
	var tb table
	engines := []string{"embedded", "mongodb"}
	tb.build(map[string]map[string]result{"embedded": {}, "mongodb": {}}, engines, nil)
	require.NotEmpty(t, tb.read)
	top, sub := regexp.MustCompile(benchTop), regexp.MustCompile(benchSub)
	for name := range tb.read {
		t.Run(name, func(t *testing.T) {
			levels := strings.Split(name, "/")
			require.GreaterOrEqual(t, len(levels), 2, "the table reads sub-benchmarks")
			assert.True(t, top.MatchString(levels[0]), "-bench %s leaves out %s", benchTop, levels[0])
			assert.True(t, sub.MatchString(levels[1]), "-bench …/%s leaves out %s", benchSub, levels[1])
		})
	}
}

func TestTheLatencyRowRunsWithTheCollectorMakeRunHas(t *testing.T) {
	for _, tc := range []struct {
		name string
		pkgs []string
		want []string
	}{
		{"the store benchmarks", storePkgs, []string{"STREAMOPS_TEST_ENGINE=mongodb", "GOGC=400"}},
		{"the ones that never touch the store", onceOnly, []string{"STREAMOPS_TEST_ENGINE=mongodb", "GOGC=400"}},
		{"the latency row", latencyPkgs, []string{"STREAMOPS_TEST_ENGINE=mongodb"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, benchEnv("mongodb", tc.pkgs))
		})
	}
}
