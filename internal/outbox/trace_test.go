package outbox_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/streamops/streamops/internal/outbox"
	"github.com/streamops/streamops/internal/status"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/tracing"
)

// A partner delivery continues the trace of the step that enqueued it:
// every request carries a traceparent of the entry's trace id with a span
// id of its own (the CLIENT span that sent it, recorded or not), and
// every attempt is one row of the entry's delivery log naming that span.
func TestPartnerDeliveriesCarryTheEntrysTraceAndLogEachAttempt(t *testing.T) {
	const traceID = "4bf92f3577b34da6a3ce929d0e0e4736"
	const enqueuedBy = "00-" + traceID + "-00f067aa0ba902b7-01"
	type row struct {
		status  int
		outcome string
	}
	tests := []struct {
		name      string
		script    []int
		recording bool
		traceID   string // the entry's; its traceparent is set when it is traceID
		want      []row
	}{
		{"200", nil, true, traceID, []row{{200, status.OutboxCompleted}}},
		{"500 then 200", []int{500}, true, traceID, []row{{500, status.OutboxFailed}, {200, status.OutboxCompleted}}},
		{"timeout", []int{hang}, true, traceID, []row{{0, status.OutboxFailed}}},
		{"500 then 200, tracing off", []int{500}, false, traceID, []row{{500, status.OutboxFailed}, {200, status.OutboxCompleted}}},
		{"only the trace id kept", []int{500}, true, "0af7651916cd43dd8448eb211c80319c", []row{{500, status.OutboxFailed}, {200, status.OutboxCompleted}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, tc.script...)
			exp := tracetest.NewInMemoryExporter()
			ctx := context.Background()
			flush := func() {}
			if tc.recording {
				p, err := tracing.New(tracing.Config{Enabled: true, SampleRatio: 1, Exporter: exp})
				require.NoError(t, err)
				defer func() { _ = p.Shutdown(ctx) }()
				ctx = tracing.WithProvider(ctx, p)
				flush = func() { require.NoError(t, p.Flush(ctx)) }
			}
			e := store.OutboxEntry{OutboxID: "out-" + strings.ReplaceAll(tc.name, " ", "-"), AggregateType: "workflow", AggregateID: "wf-1",
				EventType: "workflow.records", TargetProvider: "acme", Payload: store.JSONDoc(`{"records":[]}`),
				NextAttemptAt: h.clock.Now(), TraceID: tc.traceID}
			if tc.traceID == traceID {
				e.TraceParent = enqueuedBy
			}
			_, err := h.Store.EnqueueOutbox(ctx, e)
			require.NoError(t, err)
			r := h.relay(t, func(cfg *outbox.Config) { cfg.PartnerDeliverer.Timeout = 200 * time.Millisecond })
			for range tc.want {
				_, err := r.Run(ctx)
				require.NoError(t, err)
				h.clock.Advance(time.Minute) // past any retry's gap
			}

			got, err := h.Store.GetOutboxEntry(ctx, e.OutboxID)
			require.NoError(t, err)
			require.Len(t, got.DeliveryLog, len(tc.want), "one row per attempt")
			traceparents := h.partner.seenTraceparents()
			require.Len(t, traceparents, len(tc.want), "one request per attempt")
			spanIDs := map[string]bool{}
			for i, w := range tc.want {
				a := got.DeliveryLog[i]
				assert.Equal(t, w.status, a.StatusCode, "attempt %d", i+1)
				assert.Equal(t, w.outcome, a.Outcome, "attempt %d", i+1)
				if w.status == 0 {
					assert.Contains(t, a.Error, "timeout")
				}
				assert.Equal(t, "00-"+tc.traceID+"-"+a.SpanID+"-", traceparents[i][:53], "attempt %d: the request names its span", i+1)
				assert.NotEqual(t, "00f067aa0ba902b7", a.SpanID, "a span of its own, not the enqueuing step's")
				spanIDs[a.SpanID] = true
			}
			assert.Len(t, spanIDs, len(tc.want), "a new span per attempt")
			assert.Equal(t, tc.traceID, got.TraceID, "the entry keeps its trace")

			if !tc.recording {
				return
			}
			flush()
			var clients int
			for _, sp := range exp.GetSpans() {
				if sp.SpanKind != trace.SpanKindClient || sp.Name != "POST acme" {
					continue
				}
				a := got.DeliveryLog[clients]
				clients++
				assert.Equal(t, tc.traceID, sp.SpanContext.TraceID().String())
				assert.Equal(t, a.SpanID, sp.SpanContext.SpanID().String())
				attrs := attribute.NewSet(sp.Attributes...)
				str := func(k attribute.Key) string { v, _ := attrs.Value(k); return v.Emit() }
				assert.Equal(t, "POST", str("http.request.method"))
				assert.Equal(t, h.partner.srv.URL, str("url.full"))
				assert.Equal(t, "127.0.0.1", str("server.address"))
				assert.NotEmpty(t, str("server.port"))
				if a.StatusCode != 0 {
					assert.Equal(t, a.StatusCode, int(func() int64 { v, _ := attrs.Value("http.response.status_code"); return v.AsInt64() }()))
				}
				switch {
				case a.StatusCode == 0:
					assert.Equal(t, "timeout", str("error.type"))
				case a.StatusCode >= 400:
					assert.Equal(t, "500", str("error.type"))
				default:
					assert.False(t, attrs.HasValue("error.type"))
				}
			}
			assert.Equal(t, len(tc.want), clients, "one CLIENT span per request")
		})
	}
}

// TestADeadLetteredDeliveryIsLoggedInItsTrace: the warning on-call reads
// when a partner refuses a delivery for good carries the entry's trace.
func TestADeadLetteredDeliveryIsLoggedInItsTrace(t *testing.T) {
	const traceID = "4bf92f3577b34da6a3ce929d0e0e4736"
	h := newHarness(t, http.StatusGone)
	var logs bytes.Buffer
	logger := slog.New(tracing.LogHandler(slog.NewJSONHandler(&logs, nil)))
	e := store.OutboxEntry{OutboxID: "out-gone", AggregateType: "workflow", AggregateID: "wf-1", EventType: "workflow.records",
		TargetProvider: "acme", Payload: store.JSONDoc(`{"records":[]}`), NextAttemptAt: h.clock.Now(), TraceID: traceID,
		TraceParent: "00-" + traceID + "-00f067aa0ba902b7-01"}
	_, err := h.Store.EnqueueOutbox(context.Background(), e)
	require.NoError(t, err)
	_, err = h.relay(t, func(cfg *outbox.Config) { cfg.Logger = logger }).Run(context.Background())
	require.NoError(t, err)
	got, err := h.Store.GetOutboxEntry(context.Background(), e.OutboxID)
	require.NoError(t, err)
	require.Equal(t, status.OutboxDeadLetter, got.Status)
	var found bool
	for _, line := range bytes.Split(logs.Bytes(), []byte("\n")) {
		var m map[string]any
		if json.Unmarshal(line, &m) == nil && m["msg"] == "outbox entry dead-lettered" {
			found = true
			assert.Equal(t, traceID, m["trace_id"])
		}
	}
	assert.True(t, found, "the dead-lettered warning was logged:\n%s", logs.String())
}
