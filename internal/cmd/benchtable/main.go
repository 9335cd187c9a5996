// Command benchtable is `make bench`: it runs the performance benchmarks
// with their baselines on the embedded engine and, when MONGODB_URI is
// set, on that MongoDB too, builds the Lambda bootstraps, and prints one
// table of the ratios the performance goals are stated in (README:
// Performance), each row naming its engine.
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
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// The benchmarks of the table: the sides each ratio needs, not their
// slow one-at-a-time baselines (run those with go test directly).
const (
	benchTop = `^Benchmark(WebhookThroughput|Produce|WorkflowProcessor|TaskProcessor|StoreCommands|StartToReady)$`
	benchSub = `^(floor|minimum|handler|raw|bus|batch|claim-batch|function)`
)

var (
	// storePkgs run on every engine; onceOnly do not touch the store.
	storePkgs = []string{"./internal/httpapi", "./internal/workflow", "./internal/task", "./internal/store"}
	onceOnly  = []string{"./internal/bus", "./internal/local/e2e"}
	functions = []string{"webhook", "api", "workflow-processor", "task-processor", "outbox-relay", "retry-sweeper", "archiver", "kafka-topics"}
)

func main() {
	benchtime := flag.String("benchtime", "3x", "-benchtime on the embedded engine")
	mongoBenchtime := flag.String("mongo-benchtime", "1x", "-benchtime on the MongoDB at MONGODB_URI")
	flag.Parse()
	if err := run(os.Stdout, *benchtime, *mongoBenchtime); err != nil {
		fmt.Fprintln(os.Stderr, "benchtable:", err)
		os.Exit(1)
	}
}

func run(out io.Writer, benchtime, mongoBenchtime string) error {
	start := time.Now()
	results := map[string]map[string]result{} // engine → benchmark name → result
	embedded, err := goBench("embedded", benchtime, append(onceOnly, storePkgs...))
	if err != nil {
		return err
	}
	results["embedded"] = embedded
	engines := []string{"embedded"}
	if os.Getenv("MONGODB_URI") != "" {
		mongo, err := goBench("mongodb", mongoBenchtime, storePkgs)
		if err != nil {
			return err
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
	fmt.Fprintf(out, "\n%s, %s/%s, %d CPUs, embedded -benchtime %s", time.Now().UTC().Format("2006-01-02"), runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), benchtime)
	if len(engines) > 1 {
		fmt.Fprintf(out, ", mongodb -benchtime %s", mongoBenchtime)
	}
	fmt.Fprintf(out, "; took %s\n\n", time.Since(start).Round(time.Second))
	t.print(out)
	return nil
}

// result is one benchmark line: its metrics by unit.
type result map[string]float64

var procSuffix = regexp.MustCompile(`-\d+$`)

// parse reads `go test -bench` output: name, iterations, value-unit pairs.
func parse(r io.Reader) map[string]result {
	out := map[string]result{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") {
			continue
		}
		if _, err := strconv.Atoi(f[1]); err != nil {
			continue
		}
		res := result{}
		for i := 2; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err == nil {
				res[f[i+1]] = v
			}
		}
		out[procSuffix.ReplaceAllString(f[0], "")] = res
	}
	return out
}

// goBench runs the table's benchmarks of pkgs on engine and parses them.
func goBench(engine, benchtime string, pkgs []string) (map[string]result, error) {
	args := append([]string{"test", "-p", "1", "-run", "^$", "-bench", benchTop + "/" + benchSub,
		"-benchtime", benchtime, "-timeout", "30m"}, pkgs...)
	fmt.Fprintf(os.Stderr, "benchtable: %s: go %s\n", engine, strings.Join(args, " "))
	cmd := exec.Command(goTool(), args...)
	cmd.Env = append(os.Environ(), "STREAMOPS_TEST_ENGINE="+engine, "GOGC=400")
	var buf bytes.Buffer
	cmd.Stdout = io.MultiWriter(&buf, benchLines{os.Stderr})
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%s benchmarks: %w", engine, err)
	}
	return parse(&buf), nil
}

// benchLines passes on only the lines a reader of the run wants: the
// benchmark results and failures, not the logs of the code under test.
type benchLines struct{ w io.Writer }

func (b benchLines) Write(p []byte) (int, error) {
	for line := range bytes.Lines(p) {
		if bytes.HasPrefix(line, []byte("Benchmark")) || bytes.HasPrefix(line, []byte("---")) ||
			bytes.HasPrefix(line, []byte("FAIL")) || bytes.HasPrefix(line, []byte("ok")) || bytes.Contains(line, []byte("_test.go:")) {
			_, _ = b.w.Write(line)
		}
	}
	return len(p), nil
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
