package history

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/status"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/testenv"
	"github.com/streamops/streamops/internal/tracing"
)

// traceOfOriginal is the metadata.traceId the test gives original i: none
// for every fifth (an event stored before traces were kept), whose copy
// then carries the trace of the replay that made it (every event carries
// a trace: emit stamps one on an event without).
func traceOfOriginal(i int) string {
	if i%5 == 0 {
		return ""
	}
	return fmt.Sprintf("%032x", i+1)
}

// TestAReplayCopyKeepsItsOriginalsTraceAndTheJobLinksToIt: each copy
// carries its original's metadata.traceId (the replay's own when the
// original had none), and each batch's "replay" span links to its originals' traces,
// at most MaxReplayLinks of them.
func TestAReplayCopyKeepsItsOriginalsTraceAndTheJobLinksToIt(t *testing.T) {
	tests := []struct {
		name      string
		n, batch  int
		wantLinks []int // per batch span, in order
	}{
		{name: "a batch under the link limit", n: 50, batch: 50, wantLinks: []int{40}},
		{name: "batches over the link limit", n: 400, batch: 200, wantLinks: []int{MaxReplayLinks, MaxReplayLinks}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := testenv.New(t, testenv.Options{})
			originals := make([]events.Envelope, tt.n)
			traceOf := map[string]string{}
			for i := range originals {
				wf := fmt.Sprintf("wf-%05d", i)
				originals[i] = events.Envelope{EventType: events.WorkflowCreated, EventID: "evt-" + wf,
					Timestamp: events.At(window.Add(time.Duration(i) * time.Millisecond)), SchemaVersion: events.SchemaVersion,
					Metadata: &events.Metadata{Source: "api-gateway", TraceID: traceOfOriginal(i)},
					Payload:  json.RawMessage(`{"workflowId":"` + wf + `","name":"w","steps":["validate"],"priority":"low","createdAt":"2026-03-01T12:00:00.000Z"}`)}
				traceOf[originals[i].EventID] = traceOfOriginal(i)
			}
			_, err := env.Store.InsertEvents(context.Background(), originals)
			require.NoError(t, err)
			from, to := window, window.Add(time.Hour)

			exp := tracetest.NewInMemoryExporter()
			tp, err := tracing.New(tracing.Config{Enabled: true, SampleRatio: 1, Exporter: exp})
			require.NoError(t, err)
			ctx := tracing.WithProvider(t.Context(), tp)
			r := replayer(env, tt.batch)
			rs, err := r.Start(ctx, store.ReplayConfig{Filter: store.ReplayFilter{StartTime: &from, EndTime: &to}, RatePerSecond: MaxReplayRate})
			require.NoError(t, err)
			run, cancel := context.WithTimeout(ctx, time.Minute)
			_, err = r.RunDue(run)
			cancel()
			require.NoError(t, err)
			got, err := env.Store.GetReplaySession(context.Background(), rs.ID)
			require.NoError(t, err)
			require.Equal(t, status.ReplayCompleted, got.Status)

			require.NoError(t, tp.Flush(ctx))
			replayTraces := map[string]bool{}
			for _, s := range exp.GetSpans() {
				if s.Name == "replay" {
					replayTraces[s.SpanContext.TraceID().String()] = true
				}
			}
			copies := 0
			for _, e := range env.Envelopes(t, events.TopicWorkflows) {
				if e.Metadata == nil || e.Metadata.ReplayOf == "" {
					continue
				}
				copies++
				if want := traceOf[e.Metadata.ReplayOf]; want != "" {
					assert.Equal(t, want, e.Metadata.TraceID, "copy of %s", e.Metadata.ReplayOf)
				} else {
					assert.True(t, replayTraces[e.Metadata.TraceID], "copy of traceless %s carries its replay's trace, not %q",
						e.Metadata.ReplayOf, e.Metadata.TraceID)
				}
			}
			assert.Equal(t, tt.n, copies)

			var links []int
			for _, s := range exp.GetSpans() {
				if s.Name != "replay" {
					continue
				}
				links = append(links, len(s.Links))
				for _, l := range s.Links {
					var original string
					for _, a := range l.Attributes {
						if a.Key == "streamops.replay_of" {
							original = a.Value.AsString()
						}
					}
					want, ok := tp.SpanContextOf(traceOf[original], original)
					require.True(t, ok, "a link to a traced original (%s)", original)
					assert.Equal(t, want.TraceID(), l.SpanContext.TraceID())
					assert.Equal(t, want.SpanID(), l.SpanContext.SpanID())
				}
			}
			assert.Equal(t, tt.wantLinks, links)
		})
	}
}
