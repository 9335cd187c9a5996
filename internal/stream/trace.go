package stream

import (
	"context"
	"strconv"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/tracing"
)

// The trace of a record (contract of issue 26, rule 3): its record span
// continues the record's traceparent header; without one, the trace its
// event's metadata.traceId names (tracing.Resume, parent derived from the
// eventId, as producers derive the header); without either, a new trace.
// The batch's CONSUMER span is the invocation's, linked from each record
// span, and never a record's parent: records of many traces share a batch.

// startBatch starts the invocation's CONSUMER span, "process <topic>".
func (p *Processor) startBatch(ctx context.Context) (context.Context, trace.Span) {
	ctx, span := tracing.Start(ctx, "process "+p.topics[0], trace.WithSpanKind(trace.SpanKindConsumer))
	if span.IsRecording() {
		span.SetAttributes(semconv.MessagingSystemKafka, semconv.MessagingOperationTypeProcess,
			semconv.MessagingConsumerGroupName(p.cfg.Name))
	}
	return ctx, span
}

// startRecord starts m's CONSUMER span, "process <topic>", under the
// trace m carries (see above), and keeps it in m for Message.Context.
// batch is the invocation's context, whose span the record span links to.
func startRecord(batch context.Context, m *Message) {
	// The batch's span is no record's parent: clear it.
	ctx := trace.ContextWithSpanContext(batch, trace.SpanContext{})
	if tp := m.Headers[tracing.TraceparentHeader]; tp != "" {
		ctx = tracing.FromTraceparent(ctx, tp, m.Headers[tracing.TracestateHeader])
	}
	if !trace.SpanContextFromContext(ctx).IsValid() {
		if md := m.Envelope.Metadata; md != nil {
			ctx = tracing.Resume(ctx, md.TraceID, m.Envelope.EventID)
		}
	}
	opts := []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindConsumer)}
	if bs := trace.SpanFromContext(batch); bs.IsRecording() {
		opts = append(opts, trace.WithLinks(trace.Link{SpanContext: bs.SpanContext()}))
	}
	_, m.span = tracing.Start(ctx, "process "+m.Topic, opts...)
	tracing.AddParent(batch, m.span.SpanContext())
	if !m.span.IsRecording() {
		return
	}
	attrs := []attribute.KeyValue{
		semconv.MessagingSystemKafka, semconv.MessagingOperationTypeProcess,
		semconv.MessagingDestinationName(m.Topic),
		semconv.MessagingDestinationPartitionID(strconv.Itoa(int(m.Partition))),
		semconv.MessagingKafkaOffset(int(m.Offset)),
	}
	if len(m.Key) > 0 {
		attrs = append(attrs, semconv.MessagingKafkaMessageKey(string(m.Key)))
	}
	if m.Envelope.EventID != "" {
		attrs = append(attrs, semconv.MessagingMessageID(m.Envelope.EventID))
	}
	if m.Envelope.EventType != "" {
		attrs = append(attrs, attribute.String("streamops.event.type", string(m.Envelope.EventType)))
	}
	m.span.SetAttributes(attrs...)
}

// Context is ctx (the invocation's: its deadline, its tracing provider)
// under m's record span, so what handling m does (its steps, the events
// it emits, its log lines) is in m's trace, whatever trace its batch
// neighbours are in. Without a record span (a message not read by a
// Processor) it is ctx.
func (m Message) Context(ctx context.Context) context.Context {
	if m.span == nil {
		return ctx
	}
	return trace.ContextWithSpan(ctx, m.span)
}

// TraceID is the trace the work m starts keeps (a workflow's or task's
// TraceID): its event's metadata.traceId when that is a valid trace id,
// else the trace m is handled under (a record that carried no trace id
// gets its record span's new one).
func (m Message) TraceID(ctx context.Context) string {
	if md := m.Envelope.Metadata; md != nil && tracing.ValidTraceID(md.TraceID) {
		return md.TraceID
	}
	return tracing.TraceID(m.Context(ctx))
}

// deadLettered marks m's record span as failed with reason.
func (m Message) deadLettered(reason Reason) {
	if m.span != nil && m.span.IsRecording() {
		m.span.SetAttributes(attribute.String("streamops.dead_letter.reason", string(reason)))
		m.span.SetStatus(codes.Error, "dead-lettered: "+string(reason))
	}
}

// InTrace is env carrying traceID as its metadata.traceId when it carries
// none (an event stored before traces were kept): work a sweep drives on
// from a stored event stays in the trace its aggregate stored. An event
// that has a trace id keeps it.
func InTrace(env events.Envelope, traceID string) events.Envelope {
	if traceID == "" || (env.Metadata != nil && env.Metadata.TraceID != "") {
		return env
	}
	md := events.Metadata{}
	if env.Metadata != nil {
		md = *env.Metadata
	}
	md.TraceID = traceID
	env.Metadata = &md
	return env
}
