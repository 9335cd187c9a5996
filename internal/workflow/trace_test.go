package workflow_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/events/eventstest"
	"github.com/streamops/streamops/internal/status"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/stream"
	"github.com/streamops/streamops/internal/stream/streamtest"
	"github.com/streamops/streamops/internal/tracing"
	"github.com/streamops/streamops/internal/workflow"
)

// TestEachRecordOfABatchIsHandledInItsOwnTrace: one batch carries records
// of several traces, in every way a record may carry one (or none); each
// record's span continues its own, every event its workflow emits carries
// it, the workflow stores it, the log lines of its handling name it, and a
// poison record's dead letter keeps its traceparent.
func TestEachRecordOfABatchIsHandledInItsOwnTrace(t *testing.T) {
	const (
		traceA  = "4bf92f3577b34da6a3ce929d0e0e4736"
		parentA = "00f067aa0ba902b7"
		traceB  = "0af7651916cd43dd8448eb211c80319c"
		traceC  = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa1"
	)
	tests := []struct {
		name string
		// traceID is the envelope's metadata.traceId; traceparent its
		// record's header ("" for none).
		traceID, traceparent string
		// want is the trace the workflow is in ("" a new one); wantParent
		// the record span's parent span id ("" none, "derived" the one
		// tracing.Resume derives from the eventId).
		want, wantParent string
	}{
		{name: "traceparent header and metadata.traceId", traceID: traceA, traceparent: "00-" + traceA + "-" + parentA + "-01",
			want: traceA, wantParent: parentA},
		{name: "traceparent header only", traceparent: "00-" + traceC + "-" + parentA + "-01",
			want: traceC, wantParent: parentA},
		{name: "metadata.traceId only", traceID: traceB, want: traceB, wantParent: "derived"},
		{name: "neither: a new trace"},
		{name: "invalid traceparent, no traceId: a new trace", traceparent: "00-zz-yy-01"},
	}

	h := newHarness(t, nil)
	var logs bytes.Buffer
	logger := slog.New(tracing.LogHandler(slog.NewJSONHandler(&logs, nil)))
	svc, err := workflow.New(workflow.Config{Store: h.Env.Store, Runtime: stream.Runtime{
		Emitter: h.Env.Emitter, ProcessorID: "worker-test", Clock: ticking(), Logger: logger}})
	require.NoError(t, err)
	proc, err := stream.New(stream.Config{Name: "workflow-processor", Handler: svc, DeadLetters: h.Env.Store,
		Publisher: h.Env.Bus, Logger: logger})
	require.NoError(t, err)
	exp := tracetest.NewInMemoryExporter()
	tp, err := tracing.New(tracing.Config{Enabled: true, SampleRatio: 1, Exporter: exp})
	require.NoError(t, err)

	g := streamtest.NewGen(26)
	var recs []*kgo.Record
	ids, eventIDs := make([]string, len(tests)), make([]string, len(tests))
	for i, tt := range tests {
		id := g.UUID()
		env := eventstest.WorkflowCreated(g.UUID(), id, "Trace "+tt.name, "high", g.Now().Time, "validate", "transform")
		md := *env.Metadata
		md.TraceID = tt.traceID
		env.Metadata = &md
		rec := g.Record(t, env)
		rec.Headers = withTraceparent(rec.Headers, tt.traceparent)
		recs = append(recs, rec)
		ids[i], eventIDs[i] = "wf-"+id, env.EventID
	}
	// A poison record in trace A: dead-lettered with its traceparent.
	poison := g.Place(&kgo.Record{Topic: events.TopicWorkflows, Key: []byte("wf-poison"), Value: []byte("{not json"),
		Headers: withTraceparent(nil, "00-"+traceA+"-"+parentA+"-01")}, 0)
	recs = append(recs, poison)

	ctx := tracing.WithProvider(t.Context(), tp)
	require.NoError(t, proc.HandleKafkaEvent(ctx, streamtest.Batch(recs...)))
	require.NoError(t, tp.Flush(ctx))

	spans := recordSpans(exp.GetSpans())
	lines := logLines(t, &logs)
	seen := map[string]bool{}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			span, ok := spans[eventIDs[i]]
			require.True(t, ok, "a record span for the record")
			assert.Equal(t, "process "+events.TopicWorkflows, span.Name)
			assert.Equal(t, trace.SpanKindConsumer, span.SpanKind)
			got := span.SpanContext.TraceID().String()
			switch tt.want {
			case "":
				assert.False(t, span.Parent.IsValid(), "a new trace has no parent")
				assert.False(t, seen[got], "each new trace is its own")
			default:
				assert.Equal(t, tt.want, got)
				want := tt.wantParent
				if want == "derived" {
					sc, _ := tp.SpanContextOf(tt.traceID, eventIDs[i])
					want = sc.SpanID().String()
				}
				assert.Equal(t, want, span.Parent.SpanID().String())
				assert.True(t, span.Parent.IsRemote())
			}
			seen[got] = true
			assert.Contains(t, span.Attributes, attribute.String("messaging.system", "kafka"))
			assert.Contains(t, span.Attributes, attribute.String("messaging.destination.name", events.TopicWorkflows))
			require.Len(t, span.Links, 1, "linked to the invocation's span")

			assert.Equal(t, got, h.workflow(t, ids[i]).TraceID, "the workflow stores its trace")
			assert.Equal(t, status.WorkflowCompleted, h.workflow(t, ids[i]).Status)
			lifecycle := h.Lifecycle(t, ids[i])
			require.NotEmpty(t, lifecycle)
			for _, e := range lifecycle {
				assert.Equal(t, got, e.Metadata.TraceID, "%s carries the trace", e.EventType)
			}
			var logged int
			for _, l := range lines {
				if l["workflowId"] == ids[i] {
					logged++
					assert.Equal(t, got, l[tracing.LogTraceID], "log line %q", l["msg"])
					assert.Equal(t, span.SpanContext.SpanID().String(), l[tracing.LogSpanID])
				}
			}
			assert.NotZero(t, logged, "the workflow's handling logged")
		})
	}

	t.Run("poison record", func(t *testing.T) {
		dls, _, err := h.Env.Store.ListDeadLetters(context.Background(), store.DeadLetterQuery{Limit: 10})
		require.NoError(t, err)
		require.Len(t, dls, 1)
		var kept string
		for _, hd := range dls[0].Headers {
			if hd.Key == tracing.TraceparentHeader {
				kept = hd.Value
			}
		}
		assert.Equal(t, "00-"+traceA+"-"+parentA+"-01", kept, "dead_letters keeps the record's traceparent")
		dlq := h.Env.Records(t, events.DLQTopic(events.TopicWorkflows))
		require.Len(t, dlq, 1)
		assert.Equal(t, "00-"+traceA+"-"+parentA+"-01", headerMap(dlq[0].Headers)[tracing.TraceparentHeader],
			"the DLQ record keeps it too")
		var found bool
		for _, l := range lines {
			if l["msg"] == "record dead-lettered" {
				found = true
				assert.Equal(t, traceA, l[tracing.LogTraceID])
			}
		}
		assert.True(t, found)
	})
}

// withTraceparent is hs without traceparent/tracestate, plus tp when set.
func withTraceparent(hs []kgo.RecordHeader, tp string) []kgo.RecordHeader {
	var out []kgo.RecordHeader
	for _, h := range hs {
		if h.Key != tracing.TraceparentHeader && h.Key != tracing.TracestateHeader {
			out = append(out, h)
		}
	}
	if tp != "" {
		out = append(out, kgo.RecordHeader{Key: tracing.TraceparentHeader, Value: []byte(tp)})
	}
	return out
}

// recordSpans are the record spans by the eventId they handled.
func recordSpans(spans tracetest.SpanStubs) map[string]tracetest.SpanStub {
	out := map[string]tracetest.SpanStub{}
	for _, s := range spans {
		for _, a := range s.Attributes {
			if a.Key == "messaging.message.id" {
				out[a.Value.AsString()] = s
			}
		}
	}
	return out
}

// logLines are the JSON log lines of buf.
func logLines(t *testing.T, buf *bytes.Buffer) []map[string]any {
	t.Helper()
	var out []map[string]any
	sc := bufio.NewScanner(strings.NewReader(buf.String()))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m map[string]any
		require.NoError(t, json.Unmarshal(sc.Bytes(), &m))
		out = append(out, m)
	}
	return out
}

func headerMap(hs []kgo.RecordHeader) map[string]string {
	m := map[string]string{}
	for _, h := range hs {
		m[h.Key] = string(h.Value)
	}
	return m
}
