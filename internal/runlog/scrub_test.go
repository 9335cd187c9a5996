package runlog_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/internal/runlog"
)

// The personal data of the table, and what replaces each.
const (
	email = "jane.doe@example.com"
	phone = "+44 20 7946 0958"
	card  = "4242 4242 4242 4242"
	iban  = "DE89 3704 0044 0532 0130 00"
)

var personal = []string{email, phone, card, iban}

// stringer is a fmt.Stringer whose text is s.
type stringer string

func (s stringer) String() string { return string(s) }

// valuer is a slog.LogValuer whose value is v.
type valuer struct{ v slog.Value }

func (v valuer) LogValue() slog.Value { return v.v }

// customer is a struct a line logs whole (as JSON).
type customer struct {
	ID    string `json:"id"`
	Email string `json:"contact"`
	Seats int    `json:"seats"`
}

// TestScrubbingReplacesPersonalDataOfEveryAttributeKind logs one line per
// row through Scrubbing over a JSON handler and reads it back: each
// personal datum is replaced wherever it was, whatever carried it, and
// everything else is written as it would be without the wrapper.
func TestScrubbingReplacesPersonalDataOfEveryAttributeKind(t *testing.T) {
	tests := []struct {
		name string
		// logger derives the row's logger (With, WithGroup); nil: as built.
		logger func(*slog.Logger) *slog.Logger
		msg    string
		args   []any
		want   map[string]any // the line's fields but time and level
	}{
		{"the message", nil, "mail to " + email + " bounced", nil,
			map[string]any{"msg": "mail to [redacted:email] bounced"}},
		{"a string", nil, "m", []any{"to", email, "target", "acme"},
			map[string]any{"msg": "m", "to": "[redacted:email]", "target": "acme"}},
		{"a clean line is kept", nil, "partner delivery attempt",
			[]any{"outboxId", "ob_5f2c9d1e7a", "statusCode", 503, "durationMs", int64(1234)},
			map[string]any{"msg": "partner delivery attempt", "outboxId": "ob_5f2c9d1e7a", "statusCode": float64(503), "durationMs": float64(1234)}},
		{"numbers, booleans, times and durations are kept", nil, "m",
			[]any{"offset", int64(4155550100), "ok", true, "at", time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), "took", time.Second},
			map[string]any{"msg": "m", "offset": float64(4155550100), "ok": true, "at": "2026-01-02T03:04:05Z", "took": float64(time.Second)}},
		{"an error's text", nil, "m", []any{"error", errors.New("HTTP 400: partner acme answered \"card " + card + " refused\"")},
			map[string]any{"msg": "m", "error": "HTTP 400: partner acme answered \"card [redacted:card] refused\""}},
		{"a wrapped error", nil, "m", []any{"error", fmt.Errorf("deliver: %w", errors.New("iban "+iban))},
			map[string]any{"msg": "m", "error": "deliver: iban [redacted:iban]"}},
		{"a clean error is kept", nil, "m", []any{"error", errors.New("timeout")},
			map[string]any{"msg": "m", "error": "timeout"}},
		{"a Stringer", nil, "m", []any{"who", stringer("call " + phone)},
			map[string]any{"msg": "m", "who": "call [redacted:phone]"}},
		{"a group", nil, "m", []any{slog.Group("answer", "status", 422, "body", `{"email":"`+email+`"}`)},
			map[string]any{"msg": "m", "answer": map[string]any{"status": float64(422), "body": `{"email":"[redacted:email]"}`}}},
		{"a group in a group", nil, "m", []any{slog.Group("a", slog.Group("b", "phone", phone), "n", 1)},
			map[string]any{"msg": "m", "a": map[string]any{"b": map[string]any{"phone": "[redacted:phone]"}, "n": float64(1)}}},
		{"a LogValuer", nil, "m", []any{"v", valuer{slog.StringValue(email)}},
			map[string]any{"msg": "m", "v": "[redacted:email]"}},
		{"a struct, as JSON", nil, "m", []any{"customer", customer{ID: "cus_1", Email: email, Seats: 3}},
			map[string]any{"msg": "m", "customer": map[string]any{"id": "cus_1", "contact": "[redacted:email]", "seats": float64(3)}}},
		{"a map, as JSON", nil, "m", []any{"records", []map[string]any{{"iban": iban}}},
			map[string]any{"msg": "m", "records": []any{map[string]any{"iban": "[redacted:iban]"}}}},
		{"bytes", nil, "m", []any{"raw", []byte("from " + email)},
			map[string]any{"msg": "m", "raw": "from [redacted:email]"}},
		{"the logger's own attributes (With)", func(l *slog.Logger) *slog.Logger { return l.With("recipient", email) }, "m",
			[]any{"n", 1}, map[string]any{"msg": "m", "recipient": "[redacted:email]", "n": float64(1)}},
		{"attributes in the logger's group (WithGroup)", func(l *slog.Logger) *slog.Logger { return l.WithGroup("task") }, "m",
			[]any{"to", email}, map[string]any{"msg": "m", "task": map[string]any{"to": "[redacted:email]"}}},
		{"a personal datum after clean attributes", nil, "m", []any{"a", "x", "b", 2, "c", card, "d", "y"},
			map[string]any{"msg": "m", "a": "x", "b": float64(2), "c": "[redacted:card]", "d": "y"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			l := slog.New(runlog.Scrubbing(slog.NewJSONHandler(&buf, nil)))
			if tc.logger != nil {
				l = tc.logger(l)
			}
			l.Info(tc.msg, tc.args...)
			for _, p := range personal {
				assert.NotContains(t, buf.String(), p)
			}
			var got map[string]any
			require.NoError(t, json.Unmarshal(buf.Bytes(), &got), buf.String())
			delete(got, "time")
			assert.Equal(t, "INFO", got["level"])
			delete(got, "level")
			assert.Equal(t, tc.want, got)
		})
	}
}

// TestScrubbingKeepsLevelsAndTheInnerHandlersDecision: a line below the
// inner handler's level is not written, so it is not scrubbed either.
func TestScrubbingKeepsLevelsAndTheInnerHandlersDecision(t *testing.T) {
	var buf bytes.Buffer
	l := runlog.New(&buf, slog.LevelInfo)
	assert.False(t, l.Enabled(context.Background(), slog.LevelDebug))
	l.Debug("hidden " + email)
	assert.Empty(t, buf.String())
	l.Warn("shown " + email)
	line := buf.String()
	assert.Contains(t, line, `"level":"WARN"`)
	assert.Contains(t, line, `"msg":"shown [redacted:email]"`)
}

// TestScrubbingACleanLineCostsNoAllocation: a line with nothing to scrub
// goes to the inner handler as it came, so the wrapper allocates nothing
// for it.
func TestScrubbingACleanLineCostsNoAllocation(t *testing.T) {
	if raceEnabled {
		t.Skip("counted by make unit: the race detector allocates on its own")
	}
	inner := slog.NewJSONHandler(io.Discard, nil)
	ctx := context.Background()
	line := func(l *slog.Logger) func() {
		return func() {
			l.LogAttrs(ctx, slog.LevelInfo, "partner delivery attempt", slog.String("outboxId", "ob_5f2c9d1e7a"),
				slog.String("target", "acme"), slog.Int("statusCode", 503), slog.Int64("durationMs", 12))
		}
	}
	bare := testing.AllocsPerRun(200, line(slog.New(inner)))
	wrapped := testing.AllocsPerRun(200, line(slog.New(runlog.Scrubbing(inner))))
	assert.Equal(t, bare, wrapped)
}

// BenchmarkScrubbing is a relay's attempt line written bare, through the
// wrapper with nothing to find, and through it with an answer to scrub.
func BenchmarkScrubbing(b *testing.B) {
	inner := slog.NewJSONHandler(io.Discard, nil)
	answer := errors.New(`HTTP 422: partner acme answered "{\"error\":\"customer rejected\",\"contact\":\"` + email + `\"}"`)
	for _, bc := range []struct {
		name string
		h    slog.Handler
		err  error
	}{
		{"bare", inner, errors.New("HTTP 503: partner acme answered \"busy\"")},
		{"wrapped, clean", runlog.Scrubbing(inner), errors.New("HTTP 503: partner acme answered \"busy\"")},
		{"wrapped, an email", runlog.Scrubbing(inner), answer},
	} {
		b.Run(bc.name, func(b *testing.B) {
			l := slog.New(bc.h)
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				l.LogAttrs(ctx, slog.LevelInfo, "partner delivery attempt", slog.String("outboxId", "8bd33048-f45e-5cdd-a968-aa6171e32578"),
					slog.String("target", "acme"), slog.Int("attempt", 1), slog.Int("statusCode", 422), slog.Any("error", bc.err))
			}
		})
	}
}
