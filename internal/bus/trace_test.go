package bus

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/events/eventstest"
	"github.com/streamops/streamops/internal/tracing"
)

// tracedTask is a task.created of trace traceID ("" for none).
func tracedTask(traceID string) events.Envelope {
	env := eventstest.TaskCreated(eventstest.NewUUID(), eventstest.NewUUID(), "data_export", time.Now(), map[string]string{"n": "1"})
	env.Metadata = &events.Metadata{Source: "test", TraceID: traceID}
	return env
}

// recordingContext is a context whose Provider records into exp, inside
// the remote trace traceparent (and tracestate).
func recordingContext(t *testing.T, exp *tracetest.InMemoryExporter, traceparent, tracestate string) (context.Context, *tracing.Provider) {
	p, err := tracing.New(tracing.Config{Enabled: true, SampleRatio: 1, Exporter: exp})
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Shutdown(context.Background()) })
	return tracing.FromTraceparent(tracing.WithProvider(testContext(t), p), traceparent, tracestate), p
}

const (
	callTrace = "4bf92f3577b34da6a3ce929d0e0e4736"
	callTP    = "00-" + callTrace + "-00f067aa0ba902b7-01"
)

// Every record names its own event's trace: the call's PRODUCER span for
// an event of the call's trace (or of none), the event's trace resumed
// from its id otherwise, so a batch of unrelated events (the
// retry-sweeper's) keeps each one's trace.
func TestPublishGivesEveryRecordItsEventsTrace(t *testing.T) {
	cluster := newCluster(t, 1, events.TopicTasks, "replay-target")
	brokers := cluster.ListenAddrs()
	c := newTestClient(t, Config{Brokers: brokers})
	adm := newAdmin(t, brokers)
	other := []string{"0af7651916cd43dd8448eb211c80319c", "5bd66ef5095369c7b0d9c8e1f2a3b4c5", "a3ce929d0e0e47364bf92f3577b34da6"}

	tests := []struct {
		name   string
		topic  string
		traces []string // the events' metadata.traceId
		// want: "call" for the call's span, "event" for the event's resumed trace
		want []string
	}{
		{"three traces, none the call's", "replay-target", other, []string{"event", "event", "event"}},
		{"the call's trace reuses its span", "", []string{callTrace, callTrace}, []string{"call", "call"}},
		{"no trace takes the call's", "", []string{""}, []string{"call"}},
		{"mixed", "replay-target", []string{other[0], callTrace, "", "not-a-trace-id"}, []string{"event", "call", "call", "call"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			exp := tracetest.NewInMemoryExporter()
			ctx, p := recordingContext(t, exp, callTP, "")
			topic := tc.topic
			if topic == "" {
				topic = events.TopicTasks
			}
			from := endOffsets(t, adm, topic)
			envs := make([]events.Envelope, len(tc.traces))
			for i, id := range tc.traces {
				envs[i] = tracedTask(id)
			}
			if tc.topic != "" {
				require.NoError(t, c.PublishTo(ctx, tc.topic, envs...))
			} else {
				require.NoError(t, c.Publish(ctx, envs...))
			}
			require.NoError(t, p.Flush(ctx))
			spans := exp.GetSpans()
			require.Len(t, spans, 1, "one PRODUCER span per call")
			send := spans[0]
			assert.Equal(t, "send", send.Name)
			assert.Equal(t, trace.SpanKindProducer, send.SpanKind)
			assert.Equal(t, callTrace, send.SpanContext.TraceID().String())
			attrs := attribute.NewSet(send.Attributes...)
			for k, v := range map[attribute.Key]attribute.Value{
				"messaging.system": attribute.StringValue("kafka"), "messaging.operation.type": attribute.StringValue("send"),
				"messaging.destination.name": attribute.StringValue(topic), "messaging.batch.message_count": attribute.IntValue(len(envs)),
			} {
				got, ok := attrs.Value(k)
				assert.True(t, ok, "%s", k)
				assert.Equal(t, v, got, "%s", k)
			}

			recs := consume(t, brokers, topic, from, len(envs))
			byKey := map[string]*kgo.Record{}
			for _, r := range recs {
				byKey[string(r.Key)] = r
			}
			seen := map[string]bool{}
			for i, env := range envs {
				tp := headerMap(byKey[env.AggregateID()].Headers)[tracing.TraceparentHeader]
				seen[tp] = true
				switch tc.want[i] {
				case "call":
					assert.Equal(t, "00-"+callTrace+"-"+send.SpanContext.SpanID().String()+"-01", tp, "event %d", i)
				case "event":
					sc, ok := p.SpanContextOf(tc.traces[i], env.EventID)
					require.True(t, ok)
					assert.Equal(t, "00-"+tc.traces[i]+"-"+sc.SpanID().String()+"-01", tp, "event %d", i)
				}
			}
			if !strings.Contains(strings.Join(tc.want, ","), "call") {
				assert.Len(t, seen, len(envs), "one traceparent per trace")
			}
		})
	}
}

// The trace context headers count in the size check: an event exactly at
// the limit by CheckSize is accepted by the brokers however it is traced
// (a tracestate at its largest, or an event of another trace), and a
// tracestate too long to count is not sent.
func TestTraceHeadersKeepRecordsWithinTheBrokersLimit(t *testing.T) {
	cluster := newCluster(t, 1, events.TopicTasks)
	brokers := cluster.ListenAddrs()
	c := newTestClient(t, Config{Brokers: brokers})
	adm := newAdmin(t, brokers)
	// state is a valid tracestate of n bytes: members of at most 256-byte
	// values, as W3C allows.
	state := func(n int) string {
		var members []string
		for k := 'a'; n > 0; k++ {
			v := min(n-2, 200)
			members = append(members, string(k)+"="+strings.Repeat("x", v))
			n -= v + 3 // "k=" and the comma
		}
		s := strings.Join(members, ",")
		return s
	}
	tests := []struct {
		name       string
		tracestate string
		eventTrace string
		wantState  string
	}{
		{"the largest tracestate sent", state(maxTracestate), "", state(maxTracestate)},
		{"a longer tracestate is dropped", state(maxTracestate + 1), "", ""},
		{"an event of another trace", state(maxTracestate), "0af7651916cd43dd8448eb211c80319c", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx, _ := recordingContext(t, tracetest.NewInMemoryExporter(), callTP, tc.tracestate)
			withTrace := func(pad int) events.Envelope {
				env := eventstest.TaskCreated(eventstest.NewUUID(), eventstest.NewUUID(), "data_export", time.Now(), eventstest.Pad(pad))
				env.Metadata = &events.Metadata{TraceID: tc.eventTrace}
				return env
			}
			base, err := RecordSize(withTrace(0), "")
			require.NoError(t, err)
			env := withTrace(DefaultMaxMessageBytes - base)
			size, err := RecordSize(env, "")
			require.NoError(t, err)
			require.Equal(t, DefaultMaxMessageBytes, size)
			require.NoError(t, CheckSize(env, DefaultMaxMessageBytes))
			from := endOffsets(t, adm, events.TopicTasks)
			require.NoError(t, c.Publish(ctx, env), "a record the size check admits is accepted")
			r := consume(t, brokers, events.TopicTasks, from, 1)[0]
			assert.LessOrEqual(t, RecordBytes(r), DefaultMaxMessageBytes)
			assert.Equal(t, tc.wantState, headerMap(r.Headers)[tracing.TracestateHeader])
		})
	}
}
