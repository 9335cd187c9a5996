package tracing

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"net/url"
	"reflect"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/streamops/streamops/internal/fault"
)

// Header names of W3C Trace Context, as HTTP requests and Kafka records
// carry them.
const (
	TraceparentHeader = "traceparent"
	TracestateHeader  = "tracestate"
)

// Config says whether and where a Provider records spans.
type Config struct {
	// Service is the service.name of the spans ("streamops-webhook").
	Service string
	// Enabled records and exports spans; otherwise the Provider only
	// propagates trace context.
	Enabled bool
	// Endpoint is the OTLP/HTTP receiver's base URL; /v1/traces is
	// appended. Ignored when Exporter is set.
	Endpoint string
	// SampleRatio is the share of new traces recorded (0 to 1); a caller's
	// sampled flag is followed whatever it says.
	SampleRatio float64
	// Exporter, when set, receives the spans instead of an OTLP exporter
	// (tests).
	Exporter sdktrace.SpanExporter
	// BatchTimeout is how long a finished span may wait before it is
	// exported in the background. Default 1 s. Ignored with PerInvocation.
	BatchTimeout time.Duration
	// PerInvocation holds the spans until Flush and exports them then, on
	// the caller's goroutine, instead of in batches in the background: a
	// Lambda function flushes at the end of each invocation, before the
	// instance may be frozen (app.Traced).
	PerInvocation bool
}

// Provider starts the spans of one function. The zero value and nil are
// disabled providers.
type Provider struct {
	tp      *sdktrace.TracerProvider
	tracer  trace.Tracer
	sampler sdktrace.Sampler
}

var noopTracer = noop.NewTracerProvider().Tracer("")

// New returns the Provider cfg describes. A disabled one holds nothing.
func New(cfg Config) (*Provider, error) {
	if !cfg.Enabled {
		return &Provider{}, nil
	}
	if cfg.SampleRatio < 0 || cfg.SampleRatio > 1 {
		return nil, fmt.Errorf("tracing: the sample ratio must be from 0 to 1, not %v", cfg.SampleRatio)
	}
	exp := cfg.Exporter
	if exp == nil {
		u, err := url.Parse(cfg.Endpoint)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("tracing: the OTLP endpoint must be an http(s) URL such as http://localhost:4318, not %q", cfg.Endpoint)
		}
		if exp, err = newOTLPExporter(strings.TrimSuffix(cfg.Endpoint, "/")); err != nil {
			return nil, fmt.Errorf("tracing: OTLP exporter: %w", err)
		}
	}
	if cfg.BatchTimeout == 0 {
		cfg.BatchTimeout = time.Second
	}
	res, err := resource.Merge(resource.Default(), resource.NewWithAttributes(semconv.SchemaURL,
		semconv.ServiceName(cfg.Service), semconv.ServiceNamespace("streamops")))
	if err != nil {
		return nil, fmt.Errorf("tracing: resource: %w", err)
	}
	ratio := sdktrace.TraceIDRatioBased(cfg.SampleRatio)
	processor := sdktrace.NewBatchSpanProcessor(exp, sdktrace.WithBatchTimeout(cfg.BatchTimeout))
	if cfg.PerInvocation {
		processor = &invocationProcessor{exp: exp}
	}
	tp := sdktrace.NewTracerProvider(
		sdktrace.WithSpanProcessor(processor),
		sdktrace.WithResource(res),
		sdktrace.WithSampler(sdktrace.ParentBased(ratio)))
	return &Provider{tp: tp, tracer: tp.Tracer("github.com/streamops/streamops"), sampler: ratio}, nil
}

// Enabled reports whether p records spans.
func (p *Provider) Enabled() bool { return p != nil && p.tp != nil }

// Flush exports the spans that ended and waits for the receiver: a Lambda
// invocation calls it before returning, as the instance may be frozen
// right after.
func (p *Provider) Flush(ctx context.Context) error {
	if !p.Enabled() {
		return nil
	}
	return p.tp.ForceFlush(ctx)
}

// Shutdown flushes and stops p.
func (p *Provider) Shutdown(ctx context.Context) error {
	if !p.Enabled() {
		return nil
	}
	return p.tp.Shutdown(ctx)
}

type providerKey struct{}

// WithProvider returns ctx whose spans p starts (Start).
func WithProvider(ctx context.Context, p *Provider) context.Context {
	return context.WithValue(ctx, providerKey{}, p)
}

// ProviderFrom is the Provider of ctx, or a disabled one.
func ProviderFrom(ctx context.Context) *Provider {
	p, _ := ctx.Value(providerKey{}).(*Provider)
	if p == nil {
		return &Provider{}
	}
	return p
}

func (p *Provider) tracerOrNoop() trace.Tracer {
	if !p.Enabled() {
		return noopTracer
	}
	return p.tracer
}

// Start starts a span named name as a child of ctx's span, with the
// Provider of ctx. Whatever the provider, the returned context holds a
// valid span context: without a parent and without recording, a new trace
// with random ids, so an entry point always has a trace to propagate.
func Start(ctx context.Context, name string, opts ...trace.SpanStartOption) (context.Context, trace.Span) {
	ctx, span := ProviderFrom(ctx).tracerOrNoop().Start(ctx, name, opts...)
	if span.SpanContext().IsValid() {
		return ctx, span
	}
	ctx = trace.ContextWithSpanContext(ctx, newRoot())
	return ctx, trace.SpanFromContext(ctx)
}

// End ends span, recording err, when not nil, as the span's error: an
// exception event and the status, each with err's text as fault.Text
// keeps it, since an exported span is a copy of what the error quotes.
func End(span trace.Span, err error) {
	if err != nil && span.IsRecording() {
		msg := fault.Text(err)
		span.AddEvent(semconv.ExceptionEventName, trace.WithAttributes(
			semconv.ExceptionType(exceptionType(err)), semconv.ExceptionMessage(msg)))
		span.SetStatus(codes.Error, msg)
	}
	span.End()
}

// exceptionType is err's exception.type as span.RecordError writes it:
// the package path and name of its type, or the type itself when unnamed.
func exceptionType(err error) string {
	t := reflect.TypeOf(err)
	if t.PkgPath() == "" && t.Name() == "" {
		return t.String()
	}
	return t.PkgPath() + "." + t.Name()
}

// newRoot is the span context of a new, unrecorded trace.
func newRoot() trace.SpanContext {
	var tid trace.TraceID
	var sid trace.SpanID
	binary.BigEndian.PutUint64(tid[:8], rand.Uint64())
	binary.BigEndian.PutUint64(tid[8:], rand.Uint64()|1)
	binary.BigEndian.PutUint64(sid[:], rand.Uint64()|1)
	return trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: sid})
}

// TraceID is the trace id of ctx's span as 32 lowercase hex digits, or
// "" when ctx has none.
func TraceID(ctx context.Context) string {
	if sc := trace.SpanContextFromContext(ctx); sc.IsValid() {
		return sc.TraceID().String()
	}
	return ""
}

// SpanID is the span id of ctx's span as 16 lowercase hex digits, or "".
func SpanID(ctx context.Context) string {
	if sc := trace.SpanContextFromContext(ctx); sc.IsValid() {
		return sc.SpanID().String()
	}
	return ""
}

var propagator = propagation.TraceContext{}

// Traceparent is ctx's span context as W3C traceparent and tracestate
// header values; both are "" when ctx has none.
func Traceparent(ctx context.Context) (traceparent, tracestate string) {
	c := propagation.MapCarrier{}
	propagator.Inject(ctx, c)
	return c[TraceparentHeader], c[TracestateHeader]
}

// FromTraceparent returns ctx continuing the remote span that traceparent
// (and tracestate) name. An absent or invalid traceparent leaves ctx as
// it is, as W3C Trace Context asks: the receiver then starts a new trace.
func FromTraceparent(ctx context.Context, traceparent, tracestate string) context.Context {
	if traceparent == "" {
		return ctx
	}
	return propagator.Extract(ctx, propagation.MapCarrier{TraceparentHeader: traceparent, TracestateHeader: tracestate})
}

// ValidTraceID reports whether s is a W3C trace id: 32 lowercase hex
// digits, not all zero.
func ValidTraceID(s string) bool {
	if len(s) != 32 || strings.ToLower(s) != s {
		return false
	}
	id, err := trace.TraceIDFromHex(s)
	return err == nil && id.IsValid()
}

// Resume returns ctx continuing trace traceID, where only its id was kept
// (a stored workflow, task, outbox entry or event): the parent is a remote
// span whose id is derived from seed (an event id, say), so the same
// stored thing always resumes under the same parent. A ctx already in
// that trace, or a traceID that is not valid, leaves ctx as it is.
func Resume(ctx context.Context, traceID, seed string) context.Context {
	sc, ok := ProviderFrom(ctx).SpanContextOf(traceID, seed)
	if !ok || trace.SpanContextFromContext(ctx).TraceID() == sc.TraceID() {
		return ctx
	}
	return trace.ContextWithRemoteSpanContext(ctx, sc)
}

// SpanContextOf is the remote span context Resume continues: trace
// traceID, a span id derived from seed, sampled as p's ratio would sample
// a new trace of that id (the ratio sampler decides by the id alone). A
// replay links its copies to their originals with it.
func (p *Provider) SpanContextOf(traceID, seed string) (trace.SpanContext, bool) {
	if !ValidTraceID(traceID) {
		return trace.SpanContext{}, false
	}
	tid, _ := trace.TraceIDFromHex(traceID)
	sum := sha256.Sum256([]byte(seed))
	var sid trace.SpanID
	copy(sid[:], sum[:8])
	sid[7] |= 1 // never the invalid all-zero id
	var flags trace.TraceFlags
	if p.Enabled() && p.sampler.ShouldSample(sdktrace.SamplingParameters{TraceID: tid}).Decision == sdktrace.RecordAndSample {
		flags = trace.FlagsSampled
	}
	return trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: sid, TraceFlags: flags, Remote: true}), true
}

type parentsKey struct{}

// parents are the spans registered per trace (AddParent).
type parents struct {
	mu sync.Mutex
	m  map[trace.TraceID]trace.SpanContext
}

// WithParents returns ctx that remembers, per trace, a span that what is
// published later under ctx in that trace names as its parent
// (AddParent, ParentOf). A Kafka batch handles records of many traces and
// publishes their events together under the batch's context: each event
// then names its record's span, which is exported, rather than a span id
// derived from the event id, which no receiver ever gets.
func WithParents(ctx context.Context) context.Context {
	return context.WithValue(ctx, parentsKey{}, &parents{m: map[trace.TraceID]trace.SpanContext{}})
}

// AddParent registers sc as its trace's parent in ctx (WithParents); the
// first span of a trace stays. Without WithParents it does nothing.
func AddParent(ctx context.Context, sc trace.SpanContext) {
	p, _ := ctx.Value(parentsKey{}).(*parents)
	if p == nil || !sc.IsValid() {
		return
	}
	p.mu.Lock()
	if _, ok := p.m[sc.TraceID()]; !ok {
		p.m[sc.TraceID()] = sc
	}
	p.mu.Unlock()
}

// ParentOf is the span context that work of trace traceID published under
// ctx continues: the span AddParent registered for the trace, else the
// one Resume derives from seed (SpanContextOf).
func ParentOf(ctx context.Context, traceID, seed string) (trace.SpanContext, bool) {
	if p, _ := ctx.Value(parentsKey{}).(*parents); p != nil {
		if tid, err := trace.TraceIDFromHex(traceID); err == nil {
			p.mu.Lock()
			sc, ok := p.m[tid]
			p.mu.Unlock()
			if ok {
				return sc, true
			}
		}
	}
	return ProviderFrom(ctx).SpanContextOf(traceID, seed)
}
