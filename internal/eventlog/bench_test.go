package eventlog

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/tracing"
)

// BenchmarkLines is the cost of one line as the functions write it: JSON,
// with the function's name and the trace fields, to io.Discard (on Lambda
// the write to stdout comes on top); and of a line sampled out.
func BenchmarkLines(b *testing.B) {
	log := slog.New(tracing.LogHandler(slog.NewJSONHandler(io.Discard, nil))).With("function", "workflow-processor")
	ctx := tracing.FromTraceparent(context.Background(), "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "")
	const id, wf = "evt-a1b2c3d4-e5f6-7890-abcd-ef1234567890", "wf-a1b2c3d4-e5f6-7890-abcd-ef1234567890"
	b.Run("published", func(b *testing.B) {
		for range b.N {
			Published(ctx, log, Sampling{}, events.TopicWorkflows, events.WorkflowCreated, id, wf, 2, 45678)
		}
	})
	b.Run("processed", func(b *testing.B) {
		for range b.N {
			Processed(ctx, log, Sampling{}, events.TopicWorkflows, events.WorkflowCreated, id, wf, 2345*time.Millisecond, true)
		}
	})
	b.Run("sampled-out", func(b *testing.B) {
		none := Ratio(0)
		for range b.N {
			Processed(ctx, log, none, events.TopicWorkflows, events.WorkflowCreated, id, wf, 2345*time.Millisecond, true)
		}
	})
}
