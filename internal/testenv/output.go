package testenv

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// Output is an io.Writer a running stack or command writes while the test
// reads it: log lines, a command's stdout. A failed test prints its Tail.
type Output struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

// Write appends p.
func (o *Output) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.buf.Write(p)
}

// String is everything written so far.
func (o *Output) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.buf.String()
}

// Tail is the last n lines written.
func (o *Output) Tail(n int) string {
	lines := strings.Split(strings.TrimSpace(o.String()), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// Records are the JSON log lines written so far whose msg is msg, each
// decoded into its fields; lines that are not JSON objects are skipped.
func (o *Output) Records(msg string) []map[string]any {
	var out []map[string]any
	for _, line := range strings.Split(o.String(), "\n") {
		var rec map[string]any
		if json.Unmarshal([]byte(line), &rec) == nil && rec["msg"] == msg {
			out = append(out, rec)
		}
	}
	return out
}

// Record is the one JSON log line written so far whose msg is msg; the
// test fails, showing the output, when there is none or more than one.
func (o *Output) Record(tb testing.TB, msg string) map[string]any {
	tb.Helper()
	recs := o.Records(msg)
	require.Len(tb, recs, 1, "log lines %q in:\n%s", msg, o.String())
	return recs[0]
}

// DebugLogger is a JSON logger at debug level writing to o, as the local
// stack logs with LogLevel debug.
func (o *Output) DebugLogger() *slog.Logger {
	return slog.New(slog.NewJSONHandler(o, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// NonZero is a logged object of counts (a run's stats) without its zero
// counts: what the run did.
func NonZero(counts any) map[string]any {
	out := map[string]any{}
	m, _ := counts.(map[string]any)
	for k, v := range m {
		if v != float64(0) {
			out[k] = v
		}
	}
	return out
}
