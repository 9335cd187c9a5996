package stream

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/deadline"
	"github.com/streamops/streamops/internal/emit"
	"github.com/streamops/streamops/internal/metrics"
)

// Source is metadata.source of the events the processors emit (seed 003).
const Source = "event-processor"

// Emitter stores then publishes events; *emit.Emitter implements it.
type Emitter interface {
	Emit(ctx context.Context, envs ...events.Envelope) (emit.Result, error)
}

// Runtime is the part of a processor's configuration every domain step
// shares: where its events go, its name on them, its clock, how close to
// the invocation's deadline it stops starting work, its logs and metrics.
// Domain configs embed it.
type Runtime struct {
	// Emitter stores then publishes the lifecycle events. Required.
	Emitter Emitter
	// ProcessorID is metadata.processorId of the emitted events (the
	// Lambda's log stream; see ProcessorID). Default Source.
	ProcessorID string
	// DeadlineMargin is how close to the invocation's deadline the
	// processor stops starting work, keeps its progress and fails the
	// batch so the rest is delivered again: enough time to write a
	// batch's outcome. Default 5 s.
	DeadlineMargin time.Duration
	// Clock is the clock of timestamps and durations. Default time.Now.
	Clock func() time.Time
	// Logger receives structured logs. Default slog.Default().
	Logger *slog.Logger
	// Metrics receives the domain's per-batch counters. Default: none.
	Metrics *metrics.Recorder

	domain string // prefixes errors: "workflow", "task"
}

// For returns r with the defaults of its zero fields, for the domain
// named domain (the prefix of its errors).
func (r Runtime) For(domain string) Runtime {
	r.domain = domain
	if r.ProcessorID == "" {
		r.ProcessorID = Source
	}
	if r.DeadlineMargin == 0 {
		r.DeadlineMargin = 5 * time.Second
	}
	if r.Clock == nil {
		r.Clock = time.Now
	}
	if r.Logger == nil {
		r.Logger = slog.Default()
	}
	return r
}

// Validate reports the first missing or bad field.
func (r Runtime) Validate() error {
	if r.Emitter == nil {
		return errors.New(r.domain + ": Config.Emitter is required")
	}
	if r.DeadlineMargin < 0 {
		return errors.New(r.domain + ": Config.DeadlineMargin must not be negative")
	}
	return nil
}

// Now is the clock's time in UTC at millisecond precision, as events and
// documents carry it.
func (r Runtime) Now() time.Time { return r.Clock().UTC().Truncate(time.Millisecond) }

// NearDeadline reports whether the invocation is ending or its deadline is
// within DeadlineMargin.
func (r Runtime) NearDeadline(ctx context.Context) bool {
	return !deadline.Left(ctx, r.DeadlineMargin)
}

// Metadata is what the events of one aggregate of origin o carry: its
// correlation id, the partner it belongs to, the principal whose request
// started it (metadata.userId) and the trace it is part of
// (metadata.traceId), those it has.
func (r Runtime) Metadata(o Origin) *events.Metadata {
	return &events.Metadata{Source: Source, ProcessorID: r.ProcessorID, CorrelationID: o.CorrelationID, PartnerID: o.PartnerID,
		UserID: events.OptionalString(o.UserID), TraceID: o.TraceID}
}

// Event builds a validated lifecycle event with a derived id, stamped at,
// carrying meta (see Metadata).
func (r Runtime) Event(p events.Payload, id string, at time.Time, meta *events.Metadata) (events.Envelope, error) {
	env, err := events.NewEventAt(p, meta, id, events.At(at))
	if err != nil {
		return env, fmt.Errorf("%s: build %s: %w", r.domain, p.EventType(), err)
	}
	return env, nil
}
