// Command benchtable is `make bench`: it runs the performance benchmarks
// with their baselines on the embedded engine and, when MONGODB_URI is
// set, on that MongoDB too, builds the Lambda bootstraps, and prints one
// table of the ratios the performance goals are stated in
// (docs/performance.md), each row naming its engine.
//
// It runs `go test -bench` itself, one package at a time (-p 1, so no two
// benchmarks share the CPUs), echoes the raw benchmark lines to stderr,
// and reads them back: a line is the benchmark's name, its iteration
// count, then value-unit pairs (ns/op and every b.ReportMetric).
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/streamops/streamops/internal/capacity"
)

// The benchmarks of the table: the sides each ratio needs, not their
// slow one-at-a-time baselines (run those with go test directly).
const (
	benchTop = `^Benchmark(WebhookThroughput|WebhookLatency|Produce|WorkflowProcessor|TaskProcessor|StoreCommands|StartToReady|EventInsertIndexCost|ReplayThroughput|WebhookDuringReplay|WebhookTracing|PartitionScaling|Relay|Compression)$`
	benchSub = `^(floor|minimum|handler|raw|bus|batch|claim-batch|function|indexes|replay-vs-floor|p99|senders=8|3-vs-12|partners=|codecs|off-vs-on)`
)

var (
	// storePkgs run on every engine; onceOnly do not touch the store.
	storePkgs = []string{"./internal/httpapi", "./internal/workflow", "./internal/task", "./internal/store", "./internal/replaybench", "./internal/outbox", "./internal/partitionbench"}
	onceOnly  = []string{"./internal/bus", "./internal/local/e2e"}
	// latencyPkgs run one iteration on every engine: an iteration of
	// BenchmarkWebhookLatency fills a store to -latency-events.
	latencyPkgs = []string{"./internal/loadprobe"}
	functions   = []string{"webhook", "api", "workflow-processor", "task-processor", "outbox-relay", "retry-sweeper", "archiver", "kafka-topics"}
)

func main() {
	benchtime := flag.String("benchtime", "3x", "-benchtime on the embedded engine")
	mongoBenchtime := flag.String("mongo-benchtime", "1x", "-benchtime on the MongoDB at MONGODB_URI")
	quickBenchtime := flag.String("quick-benchtime", "30x", "-benchtime of the benchmarks that do not touch the store (produce: 10,000 records an iteration, about 20 ms; start to ready: a cold start): more iterations than the others, so a busy machine's noise averages out")
	scaleEvents := flag.Int("scale-events", 100_000, "events of the replay at scale on the MongoDB at MONGODB_URI (internal/replaybench TestReplayAtScale, which CI runs small); 0: none")
	constants := flag.String("constants", "", "also rewrite this capacity constants file (docs/capacity/constants.json) from the run's results; make capacity then regenerates docs/capacity.md")
	latency := flag.String("latency-events", "", "events of the filled store of the webhook latency row (internal/loadprobe BenchmarkWebhookLatency; STREAMOPS_BENCH_LATENCY_EVENTS, default 200,000)")
	flag.Parse()
	if *latency != "" {
		os.Setenv("STREAMOPS_BENCH_LATENCY_EVENTS", *latency)
	}
	if err := run(os.Stdout, *benchtime, *mongoBenchtime, *quickBenchtime, *scaleEvents, *constants); err != nil {
		fmt.Fprintln(os.Stderr, "benchtable:", err)
		os.Exit(1)
	}
}

func run(out io.Writer, benchtime, mongoBenchtime, quickBenchtime string, scaleEvents int, constants string) error {
	start := time.Now()
	results := map[string]map[string]result{} // engine → benchmark name → result
	embedded, err := goBench("embedded", benchtime, storePkgs)
	if err != nil {
		return err
	}
	quick, err := goBench("embedded", quickBenchtime, onceOnly)
	if err != nil {
		return err
	}
	maps.Copy(embedded, quick)
	lat, err := goBench("embedded", "1x", latencyPkgs)
	if err != nil {
		return err
	}
	maps.Copy(embedded, lat)
	results["embedded"] = embedded
	engines := []string{"embedded"}
	if os.Getenv("MONGODB_URI") != "" {
		mongo, err := goBench("mongodb", mongoBenchtime, storePkgs)
		if err != nil {
			return err
		}
		lat, err := goBench("mongodb", "1x", latencyPkgs)
		if err != nil {
			return err
		}
		maps.Copy(mongo, lat)
		if scaleEvents > 0 {
			sc, err := scaleReplay(scaleEvents)
			if err != nil {
				return err
			}
			mongo[scaleResult] = sc
		}
		results["mongodb"] = mongo
		engines = append(engines, "mongodb")
	}
	sizes, err := bootstrapSizes()
	if err != nil {
		return err
	}
	var t table
	t.build(results, engines, sizes)
	fmt.Fprintf(out, "\n%s, %s/%s, %d CPUs, embedded -benchtime %s (produce and start to ready %s)", time.Now().UTC().Format("2006-01-02"), runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), benchtime, quickBenchtime)
	if len(engines) > 1 {
		fmt.Fprintf(out, ", mongodb -benchtime %s", mongoBenchtime)
	}
	fmt.Fprintf(out, "; took %s\n\n", time.Since(start).Round(time.Second))
	t.print(out)
	if constants != "" {
		return writeConstants(constants, results, capacity.Run{Date: time.Now().UTC().Format("2006-01-02"),
			Machine: fmt.Sprintf("%d CPUs, %s/%s, engines: %s", runtime.NumCPU(), runtime.GOOS, runtime.GOARCH, strings.Join(engines, ", ")),
			Command: "go run ./internal/cmd/benchtable " + strings.Join(os.Args[1:], " ")})
	}
	return nil
}

// result is one benchmark line: its metrics by unit.
type result map[string]float64

var procSuffix = regexp.MustCompile(`-\d+$`)

// parse reads `go test -bench` output: name, iterations, value-unit pairs.
func parse(r io.Reader) map[string]result {
	out := map[string]result{}
	var lp lineParser
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if name, res, ok := lp.feed(sc.Text()); ok {
			out[name] = res
		}
	}
	return out
}

// lineParser reads benchmark result lines. go test prints a benchmark's
// name before running it and its figures after, so a log line of the code
// under test can land between them: a name without figures waits for the
// next line that is only figures.
type lineParser struct{ pending string }

func (lp *lineParser) feed(line string) (string, result, bool) {
	f := strings.Fields(line)
	if len(f) > 0 && strings.HasPrefix(f[0], "Benchmark") {
		name := procSuffix.ReplaceAllString(f[0], "")
		if res, ok := figures(f[1:]); ok {
			lp.pending = ""
			return name, res, true
		}
		lp.pending = name
		return "", nil, false
	}
	if res, ok := figures(f); ok && lp.pending != "" {
		name := lp.pending
		lp.pending = ""
		return name, res, true
	}
	return "", nil, false
}

// figures reads "iterations value unit value unit ...". ns/op need not
// be among them: a benchmark that times its sides itself reports 0 ns/op
// to leave it out (streamtest.BenchProcessorFloor).
func figures(f []string) (result, bool) {
	if len(f) < 3 || len(f)%2 == 0 {
		return nil, false
	}
	if _, err := strconv.Atoi(f[0]); err != nil {
		return nil, false
	}
	res := result{}
	for i := 1; i+1 < len(f); i += 2 {
		v, err := strconv.ParseFloat(f[i], 64)
		if err != nil {
			return nil, false
		}
		res[f[i+1]] = v
	}
	return res, true
}

// goBench runs the table's benchmarks of pkgs on engine and parses them.
func goBench(engine, benchtime string, pkgs []string) (map[string]result, error) {
	timeout := "30m"
	if slices.Equal(pkgs, latencyPkgs) {
		timeout = "4h" // a 200,000-event fill on today's embedded engine takes hours (docs/performance.md)
	}
	args := append([]string{"test", "-p", "1", "-run", "^$", "-bench", benchTop + "/" + benchSub,
		"-benchtime", benchtime, "-timeout", timeout}, pkgs...)
	fmt.Fprintf(os.Stderr, "benchtable: %s: go %s\n", engine, strings.Join(args, " "))
	cmd := exec.Command(goTool(), args...)
	cmd.Env = append(os.Environ(), benchEnv(engine, pkgs)...)
	var buf bytes.Buffer
	cmd.Stdout = io.MultiWriter(&buf, &benchLines{w: os.Stderr})
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%s benchmarks: %w", engine, err)
	}
	return parse(&buf), nil
}

// benchEnv is what goBench adds to the environment of pkgs' run on
// engine. The store benchmarks run with a lazier collector (GOGC=400, as
// make unit does): they measure StreamOps' code against the engine, and a
// heap of test data otherwise sets their pace. The latency row measures
// the local stack as make run runs it, so its collector is make run's:
// whatever the environment says, local.TuneCollector's otherwise.
func benchEnv(engine string, pkgs []string) []string {
	env := []string{"STREAMOPS_TEST_ENGINE=" + engine}
	if !slices.Equal(pkgs, latencyPkgs) {
		env = append(env, "GOGC=400")
	}
	return env
}

// scaleResult is the name the replay at scale's figures go by among the
// benchmarks' results.
const scaleResult = "TestReplayAtScale"

// scaleReplay runs internal/replaybench's TestReplayAtScale on the
// MongoDB at MONGODB_URI with n events, alone, and reads its "scale:"
// line: the seed's and the replay's seconds and events/s.
func scaleReplay(n int) (result, error) {
	args := []string{"test", "-count=1", "-v", "-run", "^" + scaleResult + "$", "-timeout", "60m", "./internal/replaybench", "./internal/partitionbench"}
	fmt.Fprintf(os.Stderr, "benchtable: mongodb: %d events: go %s\n", n, strings.Join(args, " "))
	cmd := exec.Command(goTool(), args...)
	cmd.Env = append(os.Environ(), "STREAMOPS_TEST_ENGINE=mongodb", fmt.Sprintf("STREAMOPS_TEST_REPLAY_EVENTS=%d", n))
	var buf bytes.Buffer
	cmd.Stdout = &buf
	cmd.Stderr = os.Stderr
	err := cmd.Run()
	res, ok := scaleFigures(buf.String())
	if err != nil || !ok {
		os.Stderr.Write(buf.Bytes())
		return nil, fmt.Errorf("the replay of %d events on mongodb: %v", n, err)
	}
	fmt.Fprintln(os.Stderr, strings.TrimSpace(scaleLine.FindString(buf.String())))
	return res, nil
}

// scaleLine is TestReplayAtScale's log line of its figures.
var scaleLine = regexp.MustCompile(`scale: ((?:[a-z/-]+=[0-9.]+ ?)+)`)

// scaleFigures reads the "scale: events=… seed-s=… …" line of out.
func scaleFigures(out string) (result, bool) {
	m := scaleLine.FindStringSubmatch(out)
	if m == nil {
		return nil, false
	}
	res := result{}
	for _, kv := range strings.Fields(m[1]) {
		k, v, _ := strings.Cut(kv, "=")
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return nil, false
		}
		res[k] = f
	}
	return res, res["events"] > 0 && res["replay-s"] > 0 && res["seed-s"] > 0
}

// benchLines passes on only what a reader of the run wants: each
// benchmark's result (name and figures, on one line even when logs of
// the code under test came between them) and the failures, not the logs.
type benchLines struct {
	w       io.Writer
	partial []byte
	lp      lineParser
	failing bool // in the indented block under a --- FAIL line
}

func (b *benchLines) Write(p []byte) (int, error) {
	b.partial = append(b.partial, p...)
	for {
		i := bytes.IndexByte(b.partial, '\n')
		if i < 0 {
			return len(p), nil
		}
		line := string(b.partial[:i])
		b.partial = b.partial[i+1:]
		if name, res, ok := b.lp.feed(line); ok {
			fmt.Fprintf(b.w, "%s", name)
			for _, unit := range slices.Sorted(maps.Keys(res)) {
				fmt.Fprintf(b.w, "\t%g %s", res[unit], unit)
			}
			fmt.Fprintln(b.w)
			continue
		}
		// A failure's report is the indented block under its --- FAIL
		// line (testify's Error and Messages lines among it): all of it
		// passes, so a failed run says why.
		indented := strings.HasPrefix(line, " ") || strings.HasPrefix(line, "\t")
		if !indented {
			b.failing = strings.HasPrefix(line, "--- FAIL")
		}
		if strings.HasPrefix(line, "---") || strings.HasPrefix(line, "FAIL") || strings.HasPrefix(line, "ok") ||
			b.failing && indented || strings.Contains(line, ".go:") && !strings.HasPrefix(line, "{") {
			fmt.Fprintln(b.w, line)
		}
	}
}

func goTool() string { return filepath.Join(runtime.GOROOT(), "bin", "go") }

// bootstrapSizes builds each function as `make build` does (arm64,
// stripped) and returns the bootstraps' sizes in bytes.
func bootstrapSizes() (map[string]int64, error) {
	dir, err := os.MkdirTemp("", "benchtable-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	sizes := map[string]int64{}
	for _, fn := range functions {
		bin := filepath.Join(dir, fn)
		cmd := exec.Command(goTool(), "build", "-tags", "lambda.norpc", "-trimpath", "-ldflags=-s -w", "-o", bin, "./functions/"+fn)
		cmd.Env = append(os.Environ(), "GOOS=linux", "GOARCH=arm64", "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("build %s: %w\n%s", fn, err, out)
		}
		fi, err := os.Stat(bin)
		if err != nil {
			return nil, err
		}
		sizes[fn] = fi.Size()
	}
	return sizes, nil
}
