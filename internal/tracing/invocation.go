package tracing

import (
	"context"
	"sync"
	"sync/atomic"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// maxHeldSpans bounds the spans an invocationProcessor holds between two
// flushes; past it, spans are dropped (and counted) rather than held
// without limit by a process that never flushes.
const maxHeldSpans = 4096

// invocationProcessor holds the spans of one Lambda invocation and exports
// them on the caller's goroutine when the invocation flushes: the
// invocation ends with one export and no hand-off to the batch
// processor's goroutine, whose scheduling, behind the store's and the
// producer's, cost a webhook request far more than the export itself.
type invocationProcessor struct {
	exp     sdktrace.SpanExporter
	mu      sync.Mutex
	held    []sdktrace.ReadOnlySpan
	dropped atomic.Int64
}

// OnStart implements sdktrace.SpanProcessor.
func (p *invocationProcessor) OnStart(context.Context, sdktrace.ReadWriteSpan) {}

// OnEnd implements sdktrace.SpanProcessor: it holds s until Flush.
func (p *invocationProcessor) OnEnd(s sdktrace.ReadOnlySpan) {
	if !s.SpanContext().IsSampled() {
		return
	}
	p.mu.Lock()
	if len(p.held) < maxHeldSpans {
		p.held = append(p.held, s)
	} else {
		p.dropped.Add(1)
	}
	p.mu.Unlock()
}

// ForceFlush implements sdktrace.SpanProcessor: it exports what it holds.
func (p *invocationProcessor) ForceFlush(ctx context.Context) error {
	p.mu.Lock()
	spans := p.held
	p.held = nil
	p.mu.Unlock()
	if len(spans) == 0 {
		return nil
	}
	return p.exp.ExportSpans(ctx, spans)
}

// Shutdown implements sdktrace.SpanProcessor.
func (p *invocationProcessor) Shutdown(ctx context.Context) error {
	err := p.ForceFlush(ctx)
	if serr := p.exp.Shutdown(ctx); err == nil {
		err = serr
	}
	return err
}
