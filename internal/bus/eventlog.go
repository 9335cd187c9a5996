package bus

import (
	"context"
	"log/slog"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/eventlog"
	"github.com/streamops/streamops/internal/tracing"
)

// logPublished writes the "Event published" line of every envelope of one
// Publish call that the brokers acknowledged (failed, in input order,
// lists the others): its record's topic, partition and offset, its key as
// the aggregate id. A line is logged in its event's trace, the one its
// record's traceparent names, so an event of a batch of unrelated ones
// (the retry-sweeper's) is found with its own trace.
func (c *Client) logPublished(ctx context.Context, envs []events.Envelope, recs []kgo.Record, failed []failure) {
	log := c.cfg.Logger
	if log == nil || !log.Enabled(ctx, slog.LevelInfo) {
		return
	}
	callTrace := tracing.TraceID(ctx)
	next := 0
	for i := range envs {
		if next < len(failed) && failed[next].index == i {
			next++
			continue
		}
		env, r := &envs[i], &recs[i]
		if !c.cfg.EventLog.Keep(env.EventID) {
			continue
		}
		eventlog.Published(recordContext(ctx, r, callTrace), log, c.cfg.EventLog, r.Topic, env.EventType, env.EventID,
			string(r.Key), r.Partition, r.Offset)
	}
}

// recordContext is ctx, or, when r's traceparent names another trace than
// callTrace (ctx's), ctx under the span that traceparent names.
func recordContext(ctx context.Context, r *kgo.Record, callTrace string) context.Context {
	for _, h := range r.Headers {
		if h.Key != tracing.TraceparentHeader {
			continue
		}
		// 00-<trace id>-<span id>-<flags>
		if len(h.Value) == traceparentLen && string(h.Value[3:35]) == callTrace {
			return ctx
		}
		return tracing.FromTraceparent(ctx, string(h.Value), "")
	}
	return ctx
}
