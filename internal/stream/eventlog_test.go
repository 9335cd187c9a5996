package stream_test

import (
	"context"
	"errors"
	"log/slog"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/events/eventstest"
	"github.com/streamops/streamops/internal/eventlog"
	"github.com/streamops/streamops/internal/stream"
	"github.com/streamops/streamops/internal/stream/streamtest"
	"github.com/streamops/streamops/internal/testenv"
	"github.com/streamops/streamops/internal/tracing"
)

// processedLine is seed 003's consumer line as the JSON handler writes it.
type processedLine struct {
	Msg            string `json:"msg"`
	Topic          string `json:"topic"`
	EventType      string `json:"eventType"`
	WorkflowID     string `json:"workflowId"`
	ProcessingTime *int64 `json:"processingTime"`
	Success        *bool  `json:"success"`
	TraceID        string `json:"trace_id"`
}

// processedLines are the "Event processed" lines out holds.
func processedLines(t *testing.T, out *testenv.Output) []processedLine {
	t.Helper()
	lines, err := eventlog.Lines[processedLine]([]byte(out.String()), eventlog.MsgProcessed)
	require.NoError(t, err)
	return lines
}

// stepper is an Aggregates over counters whose Step dead-letters the
// workflows named in poison and fails on those named in fail.
type stepper struct {
	counters
	poison, fail map[string]bool
}

var errStoreDown = errors.New("store unreachable")

func (s *stepper) Step(ctx context.Context, b *stream.Batch, st *counter, it stream.Item[events.WorkflowCreatedPayload]) error {
	switch id := it.Payload.WorkflowID; {
	case s.poison[id]:
		b.DeadLetter(it.Msg, stream.ReasonProcessingFailed, errors.New("a step that cannot run"))
		return nil
	case s.fail[id]:
		return errStoreDown
	}
	return s.counters.Step(ctx, b, st, it)
}

// Every event a processor acts on or dead-letters has one "Event
// processed" line once its batch's outcome is known, in its record's
// trace, with success true only when it was acted on and the batch
// committed; a lifecycle event the processor skips has none.
func TestEveryProcessedEventHasItsLineWithItsOutcome(t *testing.T) {
	g := streamtest.NewGen(40)
	wf := func() (string, *kgo.Record) {
		id := "wf-" + g.UUID()
		env := eventstest.WorkflowCreated(g.UUID(), id[3:], "wf", "high", g.Now().Time, "validate")
		env.Metadata = &events.Metadata{Source: "api-gateway", TraceID: eventstest.NewUUID()[:8] + "4bf92f3577b34da6a3ce929d"}
		return id, g.Record(t, env)
	}
	a, recA := wf()
	b, recB := wf()
	c, recC := wf()
	skipped := g.Record(t, eventstest.WorkflowProcessing(g.UUID(), g.UUID(), g.Now().Time, "validate", 0))
	poison := g.Place(&kgo.Record{Topic: events.TopicWorkflows, Key: []byte("wf-poison"), Value: []byte(`{"eventType":`)}, 0)

	type want struct {
		workflowID string
		success    bool
	}
	tests := []struct {
		name string
		agg  *stepper
		want []want // by workflowId
	}{
		{"all acted on", &stepper{}, []want{{a, true}, {b, true}, {c, true}, {"wf-poison", false}}},
		{"one dead-lettered by its step", &stepper{poison: map[string]bool{b: true}},
			[]want{{a, true}, {b, false}, {c, true}, {"wf-poison", false}}},
		{"a failed step fails the batch: none succeeded", &stepper{fail: map[string]bool{c: true}},
			[]want{{a, false}, {b, false}, {c, false}, {"wf-poison", false}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.agg.stored = map[string]bool{}
			var out testenv.Output
			h := stream.Keyed[events.WorkflowCreatedPayload, *counter]{Type: events.WorkflowCreated, Aggregates: tc.agg}
			proc, err := stream.New(stream.Config{Name: "workflow-processor", Handler: h, DeadLetters: &deadLetters{}, Publisher: &publisher{},
				Logger: slog.New(tracing.LogHandler(slog.NewJSONHandler(&out, nil)))})
			require.NoError(t, err)
			start := time.Now()
			err = proc.HandleKafkaEvent(context.Background(), streamtest.Batch(recA, recB, skipped, recC, poison))
			took := time.Since(start).Milliseconds()
			if tc.agg.fail != nil {
				require.ErrorIs(t, err, errStoreDown)
			} else {
				require.NoError(t, err)
			}

			lines := processedLines(t, &out)
			var got []want
			for _, l := range lines {
				got = append(got, want{l.WorkflowID, *l.Success})
				assert.Equal(t, events.TopicWorkflows, l.Topic)
				require.NotNil(t, l.ProcessingTime)
				assert.GreaterOrEqual(t, *l.ProcessingTime, int64(0))
				assert.LessOrEqual(t, *l.ProcessingTime, took, "within the batch")
				assert.NotEmpty(t, l.TraceID, "the logger's trace fields")
				if l.WorkflowID != "wf-poison" {
					assert.Equal(t, string(events.WorkflowCreated), l.EventType)
				}
			}
			sort.Slice(got, func(i, j int) bool { return got[i].workflowID < got[j].workflowID })
			sort.Slice(tc.want, func(i, j int) bool { return tc.want[i].workflowID < tc.want[j].workflowID })
			assert.Equal(t, tc.want, got, "one line per event acted on or dead-lettered, none for the skipped one")
		})
	}
}

// A line is in its record's trace: the trace its event's metadata.traceId
// names, whatever trace its batch neighbours are in.
func TestProcessedLineIsInItsRecordsTrace(t *testing.T) {
	g := streamtest.NewGen(41)
	traces := []string{"0af7651916cd43dd8448eb211c80319c", "4bf92f3577b34da6a3ce929d0e0e4736"}
	var recs []*kgo.Record
	byWorkflow := map[string]string{}
	for _, tr := range traces {
		id := g.UUID()
		env := eventstest.WorkflowCreated(g.UUID(), id, "wf", "high", g.Now().Time, "validate")
		env.Metadata = &events.Metadata{Source: "api-gateway", TraceID: tr}
		recs = append(recs, g.Record(t, env))
		byWorkflow["wf-"+id] = tr
	}
	var out testenv.Output
	h := stream.Keyed[events.WorkflowCreatedPayload, *counter]{Type: events.WorkflowCreated, Aggregates: &counters{stored: map[string]bool{}}}
	proc, err := stream.New(stream.Config{Name: "workflow-processor", Handler: h, DeadLetters: &deadLetters{}, Publisher: &publisher{},
		Logger: slog.New(tracing.LogHandler(slog.NewJSONHandler(&out, nil)))})
	require.NoError(t, err)
	require.NoError(t, proc.HandleKafkaEvent(context.Background(), streamtest.Batch(recs...)))
	lines := processedLines(t, &out)
	require.Len(t, lines, len(traces))
	for _, l := range lines {
		assert.Equal(t, byWorkflow[l.WorkflowID], l.TraceID, "workflow %s", l.WorkflowID)
	}
}

// A sampling keeps its share of successes and every failure.
func TestProcessedLinesFollowTheSampling(t *testing.T) {
	g := streamtest.NewGen(42)
	var recs []*kgo.Record
	var ids []string
	for range 100 {
		env := eventstest.WorkflowCreated(g.UUID(), g.UUID(), "wf", "high", g.Now().Time, "validate")
		recs, ids = append(recs, g.Record(t, env)), append(ids, env.EventID)
	}
	for _, tc := range []struct {
		name     string
		sampling eventlog.Sampling
		fail     bool
	}{
		{"every event", eventlog.Sampling{}, false},
		{"a fifth", eventlog.Ratio(0.2), false},
		{"none", eventlog.Ratio(0), false},
		{"none, but a failed batch's are all written", eventlog.Ratio(0), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out testenv.Output
			agg := &stepper{counters: counters{stored: map[string]bool{}}}
			if tc.fail {
				agg.counters.flushErr = errStoreDown
			}
			h := stream.Keyed[events.WorkflowCreatedPayload, *counter]{Type: events.WorkflowCreated, Aggregates: agg}
			proc, err := stream.New(stream.Config{Name: "workflow-processor", Handler: h, DeadLetters: &deadLetters{}, Publisher: &publisher{},
				Logger: slog.New(slog.NewJSONHandler(&out, nil)), EventLog: tc.sampling})
			require.NoError(t, err)
			_ = proc.HandleKafkaEvent(context.Background(), streamtest.Batch(recs...))
			want := 0
			for _, id := range ids {
				if tc.fail || tc.sampling.Keep(id) {
					want++
				}
			}
			assert.Len(t, processedLines(t, &out), want)
		})
	}
}
