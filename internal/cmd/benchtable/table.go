package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/streamops/streamops/internal/bus"
)

// row is one line of the table: a measure on an engine, what was
// measured, the figure the goal is stated in, and the goal.
type row struct {
	measure, engine, measured, figure, goal string
	met                                     bool
	missing                                 bool
	// info rows explain others; they have no goal.
	info bool
}

type table struct {
	rows []row
	// read are the benchmarks the rows were built from (of), so a test
	// can check that make bench runs each of them.
	read map[string]bool
}

// of is bench's figures in res, noting that the table reads bench.
func (t *table) of(res map[string]result, bench string) result {
	if t.read == nil {
		t.read = map[string]bool{}
	}
	t.read[bench] = true
	return res[bench]
}

func (t *table) add(r row) { t.rows = append(t.rows, r) }

// ratio adds a row comparing a side with its baseline on engine: the
// goal is met when side/base ≥ atLeast.
func (t *table) ratio(res map[string]result, engine, measure, side, base, unit string, atLeast float64) {
	t.ratioOf(res, engine, measure, metric{side, unit}, metric{base, unit}, atLeast)
}

// metric names one figure of one benchmark.
type metric struct{ bench, unit string }

// in is m's figure in res, read through t.of.
func (m metric) in(t *table, res map[string]result) (float64, bool) {
	v, ok := t.of(res, m.bench)[m.unit]
	return v, ok
}

// ratioOf is ratio for figures that need not share a benchmark or a
// unit: a benchmark that times both sides itself reports each as its own
// metric.
func (t *table) ratioOf(res map[string]result, engine, measure string, side, base metric, atLeast float64) {
	s, okS := side.in(t, res)
	b, okB := base.in(t, res)
	if !okS || !okB || b == 0 {
		t.add(row{measure: measure, engine: engine, missing: true, goal: fmt.Sprintf("≥ %.2g", atLeast)})
		return
	}
	measured := fmt.Sprintf("%s vs %s %s", num(s), num(b), side.unit)
	if side.unit != base.unit {
		measured = fmt.Sprintf("%s %s vs %s %s", num(s), side.unit, num(b), base.unit)
	}
	t.add(row{measure: measure, engine: engine, measured: measured,
		figure: fmt.Sprintf("%.2f", s/b), goal: fmt.Sprintf("≥ %.2g", atLeast), met: s/b >= atLeast})
}

// info adds a row of side/base with no goal, explaining the row above it:
// ratioOf's row, made an info row.
func (t *table) info(res map[string]result, engine, measure string, side, base metric) {
	t.ratioOf(res, engine, measure, side, base, 0)
	r := &t.rows[len(t.rows)-1]
	r.info, r.goal, r.met = true, "-", false
}

// atMost adds a row of one metric of a benchmark with an upper bound.
func (t *table) atMost(res map[string]result, engine, measure, bench, unit string, limit float64, format string) {
	v, ok := t.of(res, bench)[unit]
	if !ok {
		t.add(row{measure: measure, engine: engine, missing: true, goal: "≤ " + fmt.Sprintf(format, limit)})
		return
	}
	t.add(row{measure: measure, engine: engine, measured: fmt.Sprintf(format+" %s", v, unit),
		figure: fmt.Sprintf(format, v), goal: "≤ " + fmt.Sprintf(format, limit), met: v <= limit})
}

func (t *table) build(results map[string]map[string]result, engines []string, sizes map[string]int64) {
	for _, e := range engines {
		t.atMost(results[e], e, "store commands per accepted webhook", "BenchmarkWebhookThroughput/handler", "commands/delivery", 3, "%.3f")
	}
	for _, e := range engines {
		t.ratio(results[e], e, "webhook handler / floor (1 raw insert + 1 raw produce)",
			"BenchmarkWebhookThroughput/handler", "BenchmarkWebhookThroughput/floor", "deliveries/s", 0.5)
	}
	for _, e := range engines {
		t.ratioOf(results[e], e, "webhook function, tracing on at the deployed ratio 0.05 / off",
			metric{"BenchmarkWebhookTracing/off-vs-on", "sampled-deliveries/s"}, metric{"BenchmarkWebhookTracing/off-vs-on", "off-deliveries/s"}, 0.95)
	}
	// Every trace recorded and exported at the end of each request (as
	// Lambda must, before a freeze): measured, the export's loopback
	// round trip shown beside it.
	for _, e := range engines {
		r := t.of(results[e], "BenchmarkWebhookTracing/off-vs-on")
		row := row{measure: "webhook function, tracing on at ratio 1 (every request's spans exported) / off", engine: e, info: true, goal: "-"}
		if r["off-deliveries/s"] > 0 && r["on-deliveries/s"] > 0 {
			row.measured = fmt.Sprintf("%s vs %s deliveries/s (export %.0f µs a request)", num(r["on-deliveries/s"]), num(r["off-deliveries/s"]), r["on-flush-us/delivery"])
			row.figure = fmt.Sprintf("%.2f", r["on-deliveries/s"]/r["off-deliveries/s"])
		} else {
			row.missing = true
		}
		t.add(row)
	}
	for _, e := range engines {
		t.latency(results[e], e)
	}
	for _, e := range engines {
		t.ratio(results[e], e, "webhook contract minimum / floor (bound for any handler)",
			"BenchmarkWebhookThroughput/minimum", "BenchmarkWebhookThroughput/floor", "deliveries/s", 0.5)
	}
	t.ratioOf(results["embedded"], "kfake", "produce path (bus) / raw franz-go, same records and settings",
		metric{"BenchmarkProduce/raw-vs-bus", "bus-records/s"}, metric{"BenchmarkProduce/raw-vs-bus", "raw-records/s"}, 0.8)
	// Events decoded from JSON (the retry-sweeper's, replays') are encoded
	// by Publish: shown beside the goal's row, for what that costs.
	if r := t.of(results["embedded"], "BenchmarkProduce/raw-vs-bus"); r["raw-records/s"] > 0 && r["bus-decoded-records/s"] > 0 {
		t.add(row{measure: "produce path, events decoded from JSON (sweeper, replays) / raw franz-go", engine: "kfake", info: true, goal: "-",
			measured: fmt.Sprintf("%s vs %s records/s", num(r["bus-decoded-records/s"]), num(r["raw-records/s"])),
			figure:   fmt.Sprintf("%.2f", r["bus-decoded-records/s"]/r["raw-records/s"])})
	}
	t.compression(results["embedded"])
	// Issue 36's goal: a processor's batch against the engine's own bulk
	// insert of the events it stored plus the produce of its records
	// (BenchProcessorFloor). The processor-only side, the processor's CPU
	// against a store that discards, is shown beside it for what the
	// processor itself costs.
	for _, kind := range []string{"Workflow", "Task"} {
		floor := "Benchmark" + kind + "Processor/batch=1000,floor"
		for _, e := range engines {
			t.ratioOf(results[e], e, strings.ToLower(kind)+" processor, batch of 1,000 / floor (bulk insert of its events + produce of its records)",
				metric{floor, "batch-records/s"}, metric{floor, "floor-records/s"}, 0.8)
		}
		for _, e := range engines {
			t.info(results[e], e, strings.ToLower(kind)+" processor, batch of 1,000 / processor-only (store and emitter discard)",
				metric{"Benchmark" + kind + "Processor/batch=1000", "records/s"}, metric{"Benchmark" + kind + "Processor/batch=1000,processor-only", "records/s"})
		}
	}
	t.partitions(results, engines)
	for _, e := range engines {
		t.ratioOf(results[e], e, "replay / floor (bulk insert + raw produce of the same events)",
			metric{"BenchmarkReplayThroughput/replay-vs-floor", "replay-events/s"}, metric{"BenchmarkReplayThroughput/replay-vs-floor", "floor-events/s"}, 0.8)
	}
	// Webhook p99 while a replay runs at its default rate, against p99
	// with none: measured, no goal.
	for _, e := range engines {
		r := t.of(results[e], "BenchmarkWebhookDuringReplay/p99")
		row := row{measure: "webhook p99 during a replay at its default rate / with none", engine: e, info: true, goal: "-"}
		if r["p99-none-ms"] > 0 && r["p99-replay-ms"] > 0 {
			row.measured = fmt.Sprintf("%.0f vs %.0f ms (replay kept %s events/s)", r["p99-replay-ms"], r["p99-none-ms"], num(r["replay-events/s"]))
			row.figure = fmt.Sprintf("%.1f", r["p99-replay-ms"]/r["p99-none-ms"])
		} else {
			row.missing = true
		}
		t.add(row)
	}
	// The replay at scale (TestReplayAtScale, run only here at full size):
	// how long a large history takes to replay, against the engine's own
	// bulk insert of it.
	if r, ok := results["mongodb"][scaleResult]; ok {
		t.add(row{measure: fmt.Sprintf("replay of %s events, unlimited rate / their bulk insert", num(r["events"])), engine: "mongodb", info: true, goal: "-",
			measured: fmt.Sprintf("replayed in %s (%s events/s), inserted in %s (%s events/s)",
				minSec(r["replay-s"]), num(r["replay-events/s"]), minSec(r["seed-s"]), num(r["seed-events/s"])),
			figure: fmt.Sprintf("%.2f", r["replay-events/s"]/r["seed-events/s"])})
	}
	// BenchmarkStoreCommands counts commands on the embedded engine only:
	// a count, the same on MongoDB.
	t.atMost(results["embedded"], "any", "outbox claims (batch of 100)", "BenchmarkStoreCommands/claim-batch-100", "commands/entry", 0.04, "%.3f")
	// Partner deliveries spread over 10 partners (subscriptions fan out
	// to many) against the same entries to one.
	for _, e := range engines {
		t.ratio(results[e], e, "outbox relay, 500 entries over 10 partners / to one partner",
			"BenchmarkRelay/partners=10", "BenchmarkRelay/partners=1", "entries/s", 0.8)
	}
	for _, e := range engines {
		for _, kind := range []string{"Workflow", "Task"} {
			t.atMost(results[e], e, "MSK records, "+strings.ToLower(kind)+" batch of 1,000", "Benchmark"+kind+"Processor/batch=1000", "commands/record", 0.005, "%.3f")
		}
	}
	if res, ok := results["mongodb"]; ok {
		for _, commit := range []string{"2", "500"} {
			seed := t.of(res, "BenchmarkEventInsertIndexCost/indexes=seed/commit="+commit)["ns/op"]
			only := t.of(res, "BenchmarkEventInsertIndexCost/indexes=event_id-only/commit="+commit)["ns/op"]
			if seed > 0 && only > 0 {
				t.add(row{measure: "why: an events commit of " + commit + " with the seed's indexes / with event_id only", engine: "mongodb",
					measured: fmt.Sprintf("%.1f vs %.1f ms", seed/1e6, only/1e6), figure: fmt.Sprintf("%.2f", seed/only), goal: "-", info: true})
			}
		}
	}
	for _, fn := range functions {
		mb := float64(sizes[fn]) / 1e6
		t.add(row{measure: "stripped arm64 bootstrap: " + fn, engine: "-", measured: fmt.Sprintf("%.1f MB", mb),
			figure: fmt.Sprintf("%.1f", mb), goal: "≤ 15", met: mb <= 15})
	}
	for _, fn := range functions {
		if fn == "kafka-topics" {
			continue // a CloudFormation custom resource: its cold start is not on a request's path
		}
		t.atMost(results["embedded"], "embedded", "start to ready (exec → first /next): "+fn,
			"BenchmarkStartToReady/function="+fn, "ms-to-ready", 50, "%.0f")
	}
}

// compressionBench is BenchmarkCompression's sub-benchmark: every codec
// on the same batches of workflow lifecycle events, side by side.
const compressionBench = "BenchmarkCompression/codecs"

// compression adds the row of the producer's codec (bus.DefaultCompression):
// its bytes on the wire per record over none's, the capacity model's
// record_compression, with its produce rate over none's beside it. The
// goal keeps the codec earning its CPU: at most half of none's bytes.
func (t *table) compression(res map[string]result) {
	codec := string(bus.DefaultCompression)
	r := t.of(res, compressionBench)
	rw := row{measure: "record bytes on the wire, " + codec + " / none (batches of 1,000 workflow lifecycle events)", engine: "kfake", goal: "≤ 0.5"}
	bytes, none := r[codec+"-bytes/record"], r["none-bytes/record"]
	if bytes <= 0 || none <= 0 || r["none-records/s"] <= 0 {
		rw.missing = true
		t.add(rw)
		return
	}
	f := bytes / none
	rw.measured = fmt.Sprintf("%.1f vs %.1f bytes/record; produce %s vs %s records/s (%.2f)",
		bytes, none, num(r[codec+"-records/s"]), num(r["none-records/s"]), r[codec+"-records/s"]/r["none-records/s"])
	rw.figure, rw.met = fmt.Sprintf("%.3f", f), f <= 0.5
	t.add(rw)
}

// latencyBench is BenchmarkWebhookLatency's sub-benchmark: the local
// stack under 8 concurrent senders, on an empty store and a filled one.
const latencyBench = "BenchmarkWebhookLatency/senders=8"

// latency adds the rows of BenchmarkWebhookLatency on engine: the filled
// store's throughput and p99 within 20 % of the empty one's, the empty
// store's p99 (a goal on the embedded engine: make run's), and what
// RSS, data and the fill came to.
func (t *table) latency(res map[string]result, e string) {
	r := t.of(res, latencyBench)
	events := "a filled store"
	if r["filled-events"] > 0 {
		events = num(r["filled-events"]) + " events"
	}
	side := func(measure, unit, format string, limit float64, atLeast bool) {
		rw := row{measure: measure + ", " + events + " / empty store", engine: e}
		if atLeast {
			rw.goal = fmt.Sprintf("≥ %.2g", limit)
		} else {
			rw.goal = fmt.Sprintf("≤ %.3g", limit)
		}
		filled, empty := r["filled-"+unit], r["empty-"+unit]
		if filled <= 0 || empty <= 0 {
			rw.missing = true
			t.add(rw)
			return
		}
		f := filled / empty
		rw.measured = fmt.Sprintf(format, filled, empty)
		rw.figure, rw.met = fmt.Sprintf("%.2f", f), f <= limit
		if atLeast {
			rw.met = f >= limit
		}
		t.add(rw)
	}
	side("webhook throughput at 8 senders (local stack)", "deliveries/s", "%.1f vs %.1f deliveries/s", 0.8, true)
	side("webhook p99 at 8 senders (local stack)", "p99-ms", "%.0f vs %.0f ms", 1.25, false)
	if e == "embedded" {
		t.atMost(res, e, "webhook p99 at 8 senders (local stack), empty store", latencyBench, "empty-p99-ms", 100, "%.0f")
	}
	info := row{measure: "webhook at 8 senders (local stack): p50, RSS, data, heap, empty → " + events, engine: e, info: true, goal: "-", figure: "-"}
	if r["empty-p50-ms"] > 0 && r["filled-p50-ms"] > 0 {
		info.measured = fmt.Sprintf("p50 %.0f → %.0f ms, RSS %.0f → %.0f MB, data %.0f → %.0f MB (filled in %s)",
			r["empty-p50-ms"], r["filled-p50-ms"], r["empty-rss-mb"], r["filled-rss-mb"], r["empty-data-mb"], r["filled-data-mb"], minSec(r["fill-s"]))
		if c, ok := r["filled-compactions"]; ok {
			// A compaction on the filled side writes the whole data: it says
			// whether the side's figures hold one.
			info.measured += fmt.Sprintf(", compactions %.0f → %.0f", r["empty-compactions"], c)
		}
		if h, ok := r["filled-heap-mb"]; ok {
			// The live heap is what every collection marks again; the
			// collector's share of the CPU is what that marking cost.
			info.measured += fmt.Sprintf(", live heap %.0f → %.0f MB (%.1f → %.1f M objects), collector %.0f → %.0f %% of the CPU",
				r["empty-heap-mb"], h, r["empty-heap-mobjects"], r["filled-heap-mobjects"], r["empty-gc-cpu-pct"], r["filled-gc-cpu-pct"])
		}
	} else {
		info.missing = true
	}
	t.add(info)
}

func (t *table) print(w io.Writer) {
	fmt.Fprintln(w, "| measure | engine | measured | figure | goal | met |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|")
	for _, r := range t.rows {
		met := "no"
		switch {
		case r.missing:
			r.measured, r.figure, met = "not measured", "-", "-"
		case r.info:
			met = "-"
		case r.met:
			met = "yes"
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s |\n", r.measure, r.engine, r.measured, r.figure, r.goal, met)
	}
}

// minSec prints seconds as minutes and seconds: 5 min 32 s.
func minSec(s float64) string {
	d := time.Duration(s * float64(time.Second)).Round(time.Second)
	if d < time.Minute {
		return fmt.Sprintf("%.0f s", d.Seconds())
	}
	return fmt.Sprintf("%d min %d s", int(d.Minutes()), int(d.Seconds())%60)
}

// num prints a rate with thousands separators.
func num(v float64) string {
	s := fmt.Sprintf("%.0f", v)
	if v < 100 {
		return fmt.Sprintf("%.3g", v)
	}
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}
