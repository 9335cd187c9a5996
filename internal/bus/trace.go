package bus

import (
	"context"
	"encoding/hex"

	"github.com/twmb/franz-go/pkg/kgo"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/tracing"
)

// Sizes of the W3C trace context headers the producer adds to every
// record. A tracestate longer than maxTracestate is not sent (W3C Trace
// Context lets a vendor drop it), so the headers a record can gain are
// bounded and RecordSize can count them before anything is stored.
const (
	traceparentLen = len("00-") + 32 + 1 + 16 + 1 + 2
	maxTracestate  = 512
	// traceHeadersBytes is the most the trace context headers add to a
	// record, as RecordBytes counts them.
	traceHeadersBytes = 2*recordHeaderOverhead + len(tracing.TraceparentHeader) + traceparentLen +
		len(tracing.TracestateHeader) + maxTracestate
)

// producerSpan is the span options of a publish: one PRODUCER span.
var producerSpan = []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindProducer)}

// startSend starts the PRODUCER span of one Publish or PublishTo call of n
// records, to topic when one topic receives them all ("" otherwise).
func startSend(ctx context.Context, topic string, envs []events.Envelope) (context.Context, trace.Span) {
	ctx, span := tracing.Start(ctx, "send", producerSpan...)
	if span.IsRecording() {
		if topic == "" {
			topic = envs[0].EventType.Topic()
			for i := 1; i < len(envs) && topic != ""; i++ {
				if envs[i].EventType.Topic() != topic {
					topic = ""
				}
			}
		}
		span.SetAttributes(semconv.MessagingSystemKafka, semconv.MessagingOperationTypeSend,
			semconv.MessagingBatchMessageCount(len(envs)))
		if topic != "" {
			span.SetAttributes(semconv.MessagingDestinationName(topic))
		}
	}
	return ctx, span
}

// recordTrace makes the trace context headers of one call's records: an
// event of the call's trace (or of none) carries the call's span; an event
// of another trace (a retry-sweeper's batch of unrelated events) carries
// its own trace, under the span ctx registered for that trace
// (tracing.ParentOf: a Kafka batch's record spans) or continued as
// tracing.Resume would (seeded with the event id), so every record's
// traceparent names its event's metadata.traceId.
type recordTrace struct {
	ctx     context.Context
	traceID string
	// shared is the call's headers for the current schema version;
	// context is the call's trace context headers alone.
	shared, context []kgo.RecordHeader
}

func newRecordTrace(ctx context.Context) *recordTrace {
	t := &recordTrace{ctx: ctx, traceID: tracing.TraceID(ctx)}
	tp, ts := tracing.Traceparent(ctx)
	t.context = []kgo.RecordHeader{{Key: tracing.TraceparentHeader, Value: []byte(tp)}}
	if ts != "" && len(ts) <= maxTracestate {
		t.context = append(t.context, kgo.RecordHeader{Key: tracing.TracestateHeader, Value: []byte(ts)})
	}
	t.shared = append(currentHeaders[:2:2], t.context...)
	t.shared = t.shared[:len(t.shared):len(t.shared)]
	return t
}

// headers are the headers of env's record.
func (t *recordTrace) headers(env *events.Envelope) []kgo.RecordHeader {
	var id string
	if env.Metadata != nil {
		id = env.Metadata.TraceID
	}
	if id != "" && id != t.traceID {
		if sc, ok := tracing.ParentOf(t.ctx, id, env.EventID); ok {
			h := make([]kgo.RecordHeader, 3)
			copy(h, recordHeaders(env.SchemaVersion))
			h[2] = kgo.RecordHeader{Key: tracing.TraceparentHeader, Value: appendTraceparent(make([]byte, 0, traceparentLen), sc)}
			return h
		}
	}
	if v := env.SchemaVersion; v == "" || v == events.SchemaVersion {
		return t.shared
	}
	return append(recordHeaders(env.SchemaVersion), t.context...)
}

// appendTraceparent appends sc as a W3C traceparent header value to b.
func appendTraceparent(b []byte, sc trace.SpanContext) []byte {
	tid, sid, flags := sc.TraceID(), sc.SpanID(), [1]byte{byte(sc.TraceFlags())}
	b = append(b, "00-"...)
	b = hex.AppendEncode(b, tid[:])
	b = append(b, '-')
	b = hex.AppendEncode(b, sid[:])
	b = append(b, '-')
	return hex.AppendEncode(b, flags[:])
}
