package tracing_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/streamops/streamops/internal/tracing"
)

const (
	callerTrace  = "4bf92f3577b34da6a3ce929d0e0e4736"
	callerParent = "00-" + callerTrace + "-00f067aa0ba902b7-01"
)

func enabled(t *testing.T, ratio float64) (*tracing.Provider, *tracetest.InMemoryExporter) {
	t.Helper()
	exp := tracetest.NewInMemoryExporter()
	p, err := tracing.New(tracing.Config{Service: "streamops-test", Enabled: true, SampleRatio: ratio, Exporter: exp})
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Shutdown(context.Background()) })
	return p, exp
}

func TestStartAlwaysLeavesATraceToPropagate(t *testing.T) {
	on, _ := enabled(t, 1)
	off, err := tracing.New(tracing.Config{})
	require.NoError(t, err)
	for _, tc := range []struct {
		name       string
		provider   *tracing.Provider
		parent     string
		wantTrace  string // "" when a new trace is expected
		wantParent bool   // the span id is the caller's (nothing recorded)
	}{
		{name: "disabled, no caller", provider: off},
		{name: "disabled, caller", provider: off, parent: callerParent, wantTrace: callerTrace, wantParent: true},
		{name: "enabled, no caller", provider: on},
		{name: "enabled, caller", provider: on, parent: callerParent, wantTrace: callerTrace},
		{name: "no provider in the context", parent: callerParent, wantTrace: callerTrace, wantParent: true},
		{name: "malformed caller: new trace", provider: on, parent: "00-xyz-00f067aa0ba902b7-01"},
		{name: "all-zero caller: new trace", provider: off, parent: "00-00000000000000000000000000000000-00f067aa0ba902b7-01"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			if tc.provider != nil {
				ctx = tracing.WithProvider(ctx, tc.provider)
			}
			ctx = tracing.FromTraceparent(ctx, tc.parent, "")
			ctx, span := tracing.Start(ctx, "op")
			defer span.End()
			id := tracing.TraceID(ctx)
			require.True(t, tracing.ValidTraceID(id), id)
			if tc.wantTrace != "" {
				assert.Equal(t, tc.wantTrace, id)
			} else {
				assert.NotEqual(t, callerTrace, id)
			}
			assert.Equal(t, tc.wantParent, tracing.SpanID(ctx) == "00f067aa0ba902b7")
			tp, _ := tracing.Traceparent(ctx)
			assert.Regexp(t, `^00-`+id+`-[0-9a-f]{16}-0[01]$`, tp)
		})
	}
}

func TestTwoNewTracesDiffer(t *testing.T) {
	a, _ := tracing.Start(context.Background(), "a")
	b, _ := tracing.Start(context.Background(), "b")
	assert.NotEqual(t, tracing.TraceID(a), tracing.TraceID(b))
}

func TestEnabledProviderRecordsAChainOfSpans(t *testing.T) {
	p, exp := enabled(t, 1)
	ctx := tracing.FromTraceparent(tracing.WithProvider(context.Background(), p), callerParent, "vendor=x")
	ctx, root := tracing.Start(ctx, "root")
	_, child := tracing.Start(ctx, "child")
	tracing.End(child, errors.New("boom"))
	tracing.End(root, nil)
	require.NoError(t, p.Flush(context.Background()))

	spans := exp.GetSpans()
	require.Len(t, spans, 2)
	assert.Equal(t, "child", spans[0].Name)
	assert.Equal(t, codes.Error, spans[0].Status.Code)
	assert.Equal(t, spans[1].SpanContext.SpanID(), spans[0].Parent.SpanID())
	assert.Equal(t, "00f067aa0ba902b7", spans[1].Parent.SpanID().String())
	assert.Equal(t, callerTrace, spans[1].SpanContext.TraceID().String())
	_, state := tracing.Traceparent(ctx)
	assert.Equal(t, "vendor=x", state)
}

func TestSamplingFollowsTheCallerAndTheRatio(t *testing.T) {
	for _, tc := range []struct {
		name   string
		ratio  float64
		parent string
		want   int
	}{
		{name: "ratio 0, no caller", ratio: 0, want: 0},
		{name: "ratio 1, no caller", ratio: 1, want: 1},
		{name: "ratio 0, caller sampled", ratio: 0, parent: callerParent, want: 1},
		{name: "ratio 1, caller not sampled", ratio: 1, parent: "00-" + callerTrace + "-00f067aa0ba902b7-00", want: 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, exp := enabled(t, tc.ratio)
			ctx := tracing.FromTraceparent(tracing.WithProvider(context.Background(), p), tc.parent, "")
			ctx, span := tracing.Start(ctx, "op")
			span.End()
			require.NoError(t, p.Flush(context.Background()))
			assert.Len(t, exp.GetSpans(), tc.want)
			assert.True(t, tracing.ValidTraceID(tracing.TraceID(ctx)))
		})
	}
}

func TestResumeContinuesAStoredTraceUnderOneParent(t *testing.T) {
	p, _ := enabled(t, 1)
	base := tracing.WithProvider(context.Background(), p)
	a := tracing.Resume(base, callerTrace, "evt-1")
	b := tracing.Resume(base, callerTrace, "evt-1")
	c := tracing.Resume(base, callerTrace, "evt-2")
	assert.Equal(t, callerTrace, tracing.TraceID(a))
	assert.Equal(t, tracing.SpanID(a), tracing.SpanID(b), "the same seed resumes under the same parent")
	assert.NotEqual(t, tracing.SpanID(a), tracing.SpanID(c))
	tp, _ := tracing.Traceparent(a)
	assert.Regexp(t, `-01$`, tp, "ratio 1 samples every resumed trace")

	in, _ := tracing.Start(a, "op")
	assert.Equal(t, in, tracing.Resume(in, callerTrace, "evt-9"), "a context already in the trace stays")
	for _, bad := range []string{"", "xyz", "00000000000000000000000000000000", "4BF92F3577B34DA6A3CE929D0E0E4736"} {
		assert.Equal(t, base, tracing.Resume(base, bad, "evt-1"), bad)
	}
}

func TestValidTraceID(t *testing.T) {
	for id, want := range map[string]bool{
		callerTrace:                         true,
		"":                                  false,
		"4bf92f3577b34da6a3ce929d0e0e473":   false,
		"4bf92f3577b34da6a3ce929d0e0e47366": false,
		"4BF92F3577B34DA6A3CE929D0E0E4736":  false,
		"4bf92f3577b34da6a3ce929d0e0e473g":  false,
		"00000000000000000000000000000000":  false,
	} {
		assert.Equal(t, want, tracing.ValidTraceID(id), id)
	}
}

func TestLogLinesCarryTheTrace(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(tracing.LogHandler(slog.NewJSONHandler(&buf, nil))).With("function", "webhook")
	ctx := tracing.FromTraceparent(context.Background(), callerParent, "")
	log.InfoContext(ctx, "in a trace")
	log.Info("no context")
	lines := bytes.Split(bytes.TrimSpace(buf.Bytes()), []byte("\n"))
	require.Len(t, lines, 2)
	var in, out map[string]any
	require.NoError(t, json.Unmarshal(lines[0], &in))
	require.NoError(t, json.Unmarshal(lines[1], &out))
	assert.Equal(t, callerTrace, in[tracing.LogTraceID])
	assert.Equal(t, "00f067aa0ba902b7", in[tracing.LogSpanID])
	assert.Equal(t, "webhook", in["function"])
	assert.NotContains(t, out, tracing.LogTraceID)
}

func TestNewRefusesABadConfiguration(t *testing.T) {
	for name, cfg := range map[string]tracing.Config{
		"ratio above 1":    {Enabled: true, SampleRatio: 1.5, Endpoint: "http://localhost:4318"},
		"negative ratio":   {Enabled: true, SampleRatio: -0.1, Endpoint: "http://localhost:4318"},
		"no endpoint":      {Enabled: true, SampleRatio: 1},
		"endpoint not URL": {Enabled: true, SampleRatio: 1, Endpoint: "::not a url"},
	} {
		_, err := tracing.New(cfg)
		assert.Error(t, err, name)
	}
}

func TestParentOfNamesTheRegisteredSpanOfATrace(t *testing.T) {
	p, _ := enabled(t, 1)
	base := tracing.WithProvider(context.Background(), p)
	batch := tracing.WithParents(base)
	first, _ := tracing.Start(tracing.FromTraceparent(batch, callerParent, ""), "record 1")
	second, _ := tracing.Start(tracing.FromTraceparent(batch, callerParent, ""), "record 2")
	tracing.AddParent(batch, trace.SpanContextFromContext(first))
	tracing.AddParent(batch, trace.SpanContextFromContext(second))
	derived, ok := p.SpanContextOf(callerTrace, "evt-1")
	require.True(t, ok)
	other := "0af7651916cd43dd8448eb211c80319c"
	otherDerived, _ := p.SpanContextOf(other, "evt-2")
	for _, tc := range []struct {
		name    string
		ctx     context.Context
		traceID string
		seed    string
		want    string
	}{
		{name: "registered: the first span of the trace", ctx: batch, traceID: callerTrace, seed: "evt-1", want: tracing.SpanID(first)},
		{name: "registered, under a derived context", ctx: context.WithValue(batch, struct{}{}, 1), traceID: callerTrace, seed: "evt-1", want: tracing.SpanID(first)},
		{name: "another trace: derived", ctx: batch, traceID: other, seed: "evt-2", want: otherDerived.SpanID().String()},
		{name: "no registry: derived", ctx: base, traceID: callerTrace, seed: "evt-1", want: derived.SpanID().String()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc, ok := tracing.ParentOf(tc.ctx, tc.traceID, tc.seed)
			require.True(t, ok)
			assert.Equal(t, tc.traceID, sc.TraceID().String())
			assert.Equal(t, tc.want, sc.SpanID().String())
		})
	}
	_, ok = tracing.ParentOf(batch, "not-a-trace", "evt-1")
	assert.False(t, ok)
}

func TestPerInvocationHoldsTheSpansUntilFlush(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	p, err := tracing.New(tracing.Config{Service: "streamops-test", Enabled: true, SampleRatio: 1, Exporter: exp, PerInvocation: true})
	require.NoError(t, err)
	ctx := tracing.WithProvider(context.Background(), p)
	for range 3 {
		_, s := tracing.Start(ctx, "sampled")
		s.End()
	}
	unsampled := tracing.FromTraceparent(ctx, "00-"+callerTrace+"-00f067aa0ba902b7-00", "")
	_, s := tracing.Start(unsampled, "not sampled")
	s.End()
	assert.Empty(t, exp.GetSpans(), "nothing leaves before the invocation flushes")
	require.NoError(t, p.Flush(ctx))
	assert.Len(t, exp.GetSpans(), 3)
	require.NoError(t, p.Flush(ctx), "a flush with nothing held exports nothing")
	assert.Len(t, exp.GetSpans(), 3)
	for range 5000 {
		_, s := tracing.Start(ctx, "many")
		s.End()
	}
	require.NoError(t, p.Flush(ctx))
	assert.Len(t, exp.GetSpans(), 3+4096, "a process that never flushes holds a bounded number")
	require.NoError(t, p.Shutdown(ctx))
}

// TestEndRecordsAnErrorWithoutThePersonalDataItQuotes: an exported span
// is a copy of its error's text, so the status and the exception event
// carry it scrubbed, with the error's type.
func TestEndRecordsAnErrorWithoutThePersonalDataItQuotes(t *testing.T) {
	tests := []struct {
		name, cause, want string
	}{
		{"an email and a card", "partner answered: jane.doe@example.com, 4242 4242 4242 4242",
			"partner answered: [redacted:email], [redacted:card]"},
		{"nothing to scrub", "connection refused", "connection refused"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, exp := enabled(t, 1)
			_, span := tracing.Start(tracing.WithProvider(context.Background(), p), "POST acme")
			tracing.End(span, errors.New(tc.cause))
			require.NoError(t, p.Flush(context.Background()))
			spans := exp.GetSpans()
			require.Len(t, spans, 1)
			assert.Equal(t, codes.Error, spans[0].Status.Code)
			assert.Equal(t, tc.want, spans[0].Status.Description)
			require.Len(t, spans[0].Events, 1)
			ev := spans[0].Events[0]
			assert.Equal(t, "exception", ev.Name)
			attrs := map[string]string{}
			for _, a := range ev.Attributes {
				attrs[string(a.Key)] = a.Value.AsString()
			}
			assert.Equal(t, map[string]string{"exception.type": "*errors.errorString", "exception.message": tc.want}, attrs)
		})
	}
}
