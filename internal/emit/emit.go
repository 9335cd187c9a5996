package emit

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/bus"
	"github.com/streamops/streamops/internal/metrics"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/tracing"
)

// Publisher publishes envelopes to their topics with one flush; *bus.Client
// implements it. A partial failure should be an error with an
// `EventIDs() []string` method naming the events that were not published
// (bus.PublishError); any other error means none were.
type Publisher interface {
	Publish(ctx context.Context, envs ...events.Envelope) error
}

// EventStore stores events and remembers which were published;
// *store.Store implements it.
type EventStore interface {
	InsertEvents(ctx context.Context, envs []events.Envelope) (store.InsertResult, error)
	// InsertEventsTo stores events bound for topic (a replay's target),
	// so the retry-sweeper publishes a missed one there.
	InsertEventsTo(ctx context.Context, topic string, envs []events.Envelope) (store.InsertResult, error)
	MarkPublished(ctx context.Context, eventIDs ...string) error
}

// TopicPublisher publishes envelopes to a topic other than their event
// type's (a replay's target topic); *bus.Client implements it.
type TopicPublisher interface {
	PublishTo(ctx context.Context, topic string, envs ...events.Envelope) error
}

// PublishTo publishes envs with p to topic, or each to its own type's
// topic when topic is empty; a non-empty topic needs p to be a
// TopicPublisher. The emitter and the retry-sweeper publish through it.
func PublishTo(ctx context.Context, p Publisher, topic string, envs ...events.Envelope) error {
	if topic == "" {
		return p.Publish(ctx, envs...)
	}
	tp, ok := p.(TopicPublisher)
	if !ok {
		return errNoTopicPublisher(topic)
	}
	return tp.PublishTo(ctx, topic, envs...)
}

func errNoTopicPublisher(topic string) error {
	return fmt.Errorf("emit: the publisher cannot publish to topic %s", topic)
}

// Config wires an Emitter.
type Config struct {
	// Store is where events are stored. Required.
	Store EventStore
	// Publisher puts events on Kafka. Required.
	Publisher Publisher
	// PublishTimeout bounds the inline publish so a slow or unreachable
	// broker delays a request by at most this much (the sweeper publishes
	// what did not make it). Default 3 s.
	PublishTimeout time.Duration
	// Logger receives structured logs. Default slog.Default().
	Logger *slog.Logger
	// Metrics receives Published, PublishLatency, PublishFailures and
	// Duplicates. Default: none.
	Metrics *metrics.Recorder
	// MaxMessageBytes is the largest Kafka record the brokers accept
	// (bus.Config.MaxMessageBytes): Emit refuses, before storing anything,
	// an event whose record would be larger, because it could never be
	// published. Default bus.DefaultMaxMessageBytes.
	MaxMessageBytes int
	// MarkDelay lets the "published" marks of publishes that follow each
	// other within it share one store command (see marker): 0, the
	// default, marks each Publish's events in a command of its own before
	// Publish returns. The request-serving functions run with
	// DefaultMarkDelay. Call Flush before the process exits.
	MarkDelay time.Duration
	// MarkBatch is how many coalesced marks are written at once at the
	// most. Default DefaultMarkBatch.
	MarkBatch int
	// LedgerMin is the fewest events a Store records in a publish ledger
	// instead of marking each one published (see LedgerStore): default
	// DefaultLedgerMin; negative, never.
	LedgerMin int
}

// DefaultLedgerMin is Config.LedgerMin's default. A "published" mark
// rewrites every event it names, which on both engines costs most of
// what the event's insert did (every index of the history again); a
// ledger is two writes of one small document whatever the count. Below
// this many events the mark is the cheaper (and the request-serving
// functions share one mark among the requests of a second, MarkDelay);
// a processor's batch stores thousands.
const DefaultLedgerMin = 16

// LedgerStore records a large store's publication in one ledger document
// instead of a mark per event; *store.Store implements it.
type LedgerStore interface {
	InsertLedgeredEventsTo(ctx context.Context, topic string, envs []events.Envelope) (store.InsertResult, string, error)
	CloseLedger(ctx context.Context, id string, unpublished ...string) error
}

func (c *Config) setDefaults() {
	if c.PublishTimeout == 0 {
		c.PublishTimeout = 3 * time.Second
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.MaxMessageBytes == 0 {
		c.MaxMessageBytes = bus.DefaultMaxMessageBytes
	}
	if c.LedgerMin == 0 {
		c.LedgerMin = DefaultLedgerMin
	}
	if c.MarkBatch == 0 {
		c.MarkBatch = DefaultMarkBatch
	}
}

// Validate reports the first missing or bad field.
func (c Config) Validate() error {
	switch {
	case c.Store == nil:
		return errors.New("emit: Config.Store is required")
	case c.Publisher == nil:
		return errors.New("emit: Config.Publisher is required")
	case c.PublishTimeout < 0:
		return errors.New("emit: Config.PublishTimeout must not be negative")
	case c.MaxMessageBytes < 0:
		return errors.New("emit: Config.MaxMessageBytes must not be negative")
	case c.MarkDelay < 0:
		return errors.New("emit: Config.MarkDelay must not be negative")
	case c.MarkBatch < 0:
		return errors.New("emit: Config.MarkBatch must not be negative")
	}
	return nil
}

// Emitter stores then publishes events. Safe for concurrent use.
type Emitter struct {
	cfg   Config
	marks *marker
	// ledgers is Config.Store as a LedgerStore when it is one and
	// Config.LedgerMin allows ledgers; nil otherwise.
	ledgers LedgerStore
}

// New returns an Emitter.
func New(cfg Config) (*Emitter, error) {
	cfg.setDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	e := &Emitter{cfg: cfg, marks: &marker{store: cfg.Store, delay: cfg.MarkDelay, batch: cfg.MarkBatch, logger: cfg.Logger}}
	if ls, ok := cfg.Store.(LedgerStore); ok && cfg.LedgerMin > 0 {
		e.ledgers = ls
	}
	return e, nil
}

// Flush writes the "published" marks that Config.MarkDelay holds back.
// Call it when the process stops; a mark it cannot write costs a
// duplicate publish by the retry-sweeper, never an event.
func (e *Emitter) Flush(ctx context.Context) { e.marks.flush(ctx) }

// Result says what happened to each event of an Emit.
type Result struct {
	// Stored are the events this call stored.
	Stored []string
	// Duplicates were stored before (a retry); they are not published again
	// here: whoever stored them publishes them, or the sweeper does.
	Duplicates []string
	// Published are stored events now on Kafka.
	Published []string
	// Unpublished are stored events whose publish failed; the sweeper
	// publishes them later.
	Unpublished []string
}

// failedEvents is implemented by bus.PublishError.
type failedEvents interface{ EventIDs() []string }

// Unpublished returns which of envs a Publish error left unpublished: the
// ones a partial failure names (an error with EventIDs(), as
// bus.PublishError), all of them for any other error, none for nil.
func Unpublished(err error, envs []events.Envelope) map[string]bool {
	failed := map[string]bool{}
	var partial failedEvents
	switch {
	case err == nil:
	case errors.As(err, &partial):
		for _, id := range partial.EventIDs() {
			failed[id] = true
		}
	default:
		for _, env := range envs {
			failed[env.EventID] = true
		}
	}
	return failed
}

// CheckSize returns a *bus.TooLargeError for the first of envs whose Kafka
// record would be larger than the brokers accept (Config.MaxMessageBytes).
// Writers call it where they build an event, before they store anything
// for the request, so what they accept can always be published.
func (e *Emitter) CheckSize(envs ...events.Envelope) error {
	for _, env := range envs {
		if err := bus.CheckSize(env, e.cfg.MaxMessageBytes); err != nil {
			return err
		}
	}
	return nil
}

// MaxMessageBytes is the largest Kafka record the emitter lets through.
func (e *Emitter) MaxMessageBytes() int { return e.cfg.MaxMessageBytes }

// Emit stores envs, then publishes the newly stored ones that have a topic.
// The error is non-nil only when storing failed, or when an event could
// never be published (a *bus.TooLargeError, checked before storing); then
// nothing was stored or published. An event without metadata.traceId is
// stored and published with ctx's trace id, when ctx has one.
func (e *Emitter) Emit(ctx context.Context, envs ...events.Envelope) (Result, error) {
	return e.EmitTo(ctx, "", envs...)
}

// EmitTo is Emit to topic instead of each event's own topic (empty:
// theirs), for replays to a target topic: the events are stored with that
// topic, so the retry-sweeper publishes what did not make it there too. A
// non-empty topic needs a Publisher that is a TopicPublisher.
func (e *Emitter) EmitTo(ctx context.Context, topic string, envs ...events.Envelope) (Result, error) {
	p, err := e.StoreTo(ctx, topic, envs...)
	if err != nil {
		return Result{}, err
	}
	return e.Publish(ctx, p), nil
}

// Stored is what Store stored, for Publish to publish: the first half of
// Emit, so a caller can run its other writes beside the events' insert
// and publish once all of them are durable.
type Stored struct {
	topic   string
	res     Result
	publish []events.Envelope
	// marked: the events were stored as published (StoreReplay), so
	// Publish marks none.
	marked bool
	// ledger: the events were stored as published under this publish
	// ledger, which Publish closes instead of marking them.
	ledger string
}

// Store is the first half of Emit: it stores envs (one unordered bulk
// insert) and publishes nothing. The error is as Emit's.
func (e *Emitter) Store(ctx context.Context, envs ...events.Envelope) (Stored, error) {
	return e.StoreTo(ctx, "", envs...)
}

// StoreTo is Store for EmitTo's topic.
func (e *Emitter) StoreTo(ctx context.Context, topic string, envs ...events.Envelope) (Stored, error) {
	envs = withTrace(ctx, envs)
	if e.ledgers != nil && len(envs) >= e.cfg.LedgerMin {
		var ledger string
		st, err := e.storeWith(ctx, topic, envs, func() (res store.InsertResult, err error) {
			res, ledger, err = e.ledgers.InsertLedgeredEventsTo(ctx, topic, envs)
			return res, err
		})
		st.ledger = ledger
		return st, err
	}
	return e.storeWith(ctx, topic, envs, func() (store.InsertResult, error) { return e.cfg.Store.InsertEventsTo(ctx, topic, envs) })
}

// ReplayStore stores a replay session's copies marked as its own;
// *store.Store implements it.
type ReplayStore interface {
	InsertReplayEvents(ctx context.Context, session, topic string, envs []events.Envelope) (store.InsertResult, error)
}

// StoreReplay is StoreTo for the copies replay session makes: stored
// marked as the session's (so its snapshot never selects them) and as
// published, the session's checkpoint standing for the marks; those
// stored before (the session's batch run again after a crash) are
// published by Publish again. Publish marks nothing: the caller hands the
// ones it could not publish back with MarkUnpublished. Needs a
// Config.Store that is a ReplayStore.
func (e *Emitter) StoreReplay(ctx context.Context, session, topic string, envs ...events.Envelope) (Stored, error) {
	rs, ok := e.cfg.Store.(ReplayStore)
	if !ok {
		return Stored{}, errors.New("emit: the store cannot store a replay's events")
	}
	envs = withTrace(ctx, envs)
	st, err := e.storeWith(ctx, topic, envs, func() (store.InsertResult, error) { return rs.InsertReplayEvents(ctx, session, topic, envs) })
	st.marked = true
	return st, err
}

// storeWith stores envs with insert and keeps for Publish the ones it
// stored, and the duplicates it says are pending.
func (e *Emitter) storeWith(ctx context.Context, topic string, envs []events.Envelope, insert func() (store.InsertResult, error)) (Stored, error) {
	if _, ok := e.cfg.Publisher.(TopicPublisher); topic != "" && !ok {
		return Stored{}, errNoTopicPublisher(topic)
	}
	if err := e.CheckSize(envs...); err != nil {
		return Stored{}, fmt.Errorf("emit: %w", err)
	}
	ins, err := insert()
	if err != nil {
		return Stored{}, fmt.Errorf("emit: store events: %w", err)
	}
	st := Stored{topic: topic, res: Result{Stored: ins.Inserted, Duplicates: ins.Duplicates}}
	stored := make(map[string]bool, len(ins.Inserted)+len(ins.Pending))
	for _, id := range ins.Inserted {
		stored[id] = true
	}
	for _, id := range ins.Pending {
		stored[id] = true
	}
	for _, env := range envs {
		if stored[env.EventID] && (topic != "" || env.EventType.Topic() != "") {
			st.publish = append(st.publish, env)
		}
	}
	return st, nil
}

// Publish is the second half of Emit: it publishes the events Store newly
// stored (duplicates are left to whoever stored them first, or the
// sweeper) and marks the published ones, in one command, or coalesced
// with other calls' marks under Config.MarkDelay. It never fails:
// what it could not publish is Result.Unpublished, for the sweeper.
func (e *Emitter) Publish(ctx context.Context, st Stored) Result {
	res := st.res
	if len(st.publish) > 0 {
		res.Published, res.Unpublished = e.publish(ctx, st.topic, st.publish)
	}
	// A mark that fails leaves the events to the sweeper, which publishes
	// them once more (consumers are idempotent): not a reason to fail the
	// request.
	switch {
	case st.ledger != "":
		// A ledger left open is the sweeper's: it publishes all of its
		// events again.
		if err := e.ledgers.CloseLedger(context.WithoutCancel(ctx), st.ledger, res.Unpublished...); err != nil {
			e.cfg.Logger.WarnContext(ctx, "publish ledger not closed; the retry-sweeper will publish its events again",
				"ledger", st.ledger, "events", len(st.publish), "error", err)
		}
	case !st.marked:
		e.marks.mark(ctx, res.Published)
	}
	e.cfg.Metrics.Record(
		metrics.Metric{Name: "Published", Unit: metrics.Count, Value: float64(len(res.Published))},
		metrics.Metric{Name: "PublishFailures", Unit: metrics.Count, Value: float64(len(res.Unpublished))},
		metrics.Metric{Name: "Duplicates", Unit: metrics.Count, Value: float64(len(res.Duplicates))},
	)
	return res
}

func (e *Emitter) publish(ctx context.Context, topic string, envs []events.Envelope) (published, unpublished []string) {
	pctx, cancel := context.WithTimeout(ctx, e.cfg.PublishTimeout)
	defer cancel()
	start := time.Now()
	err := PublishTo(pctx, e.cfg.Publisher, topic, envs...)
	latency := time.Since(start)
	e.cfg.Metrics.Record(metrics.Metric{Name: "PublishLatency", Unit: metrics.Milliseconds, Value: float64(latency.Microseconds()) / 1000})

	failed := Unpublished(err, envs)
	for _, env := range envs {
		if failed[env.EventID] {
			unpublished = append(unpublished, env.EventID)
			e.cfg.Logger.WarnContext(ctx, "event stored but not published; the retry-sweeper will publish it",
				"eventId", env.EventID, "eventType", env.EventType, "correlationId", correlationID(env), "error", err)
			continue
		}
		published = append(published, env.EventID)
		e.cfg.Logger.InfoContext(ctx, "event published",
			"eventId", env.EventID, "eventType", env.EventType, "topic", env.EventType.Topic(),
			"correlationId", correlationID(env), "latencyMs", latency.Milliseconds())
	}
	return published, unpublished
}

func correlationID(env events.Envelope) string {
	if env.Metadata == nil {
		return ""
	}
	return env.Metadata.CorrelationID
}

// withTrace is envs with ctx's trace id as the metadata.traceId of those
// that have none: the safety net under rule 1 of the trace (every event
// carries the trace of what caused it) for a construction site that
// missed it. envs is returned as it is when ctx has no trace or every
// event has one; otherwise a copy, the stamped events with metadata of
// their own (never changed in place: it may be shared, and events.New's
// kept encoding is checked against it), which Publish encodes again.
func withTrace(ctx context.Context, envs []events.Envelope) []events.Envelope {
	traceID := ""
	var out []events.Envelope
	for i := range envs {
		if m := envs[i].Metadata; m != nil && m.TraceID != "" {
			continue
		}
		if traceID == "" {
			if traceID = tracing.TraceID(ctx); traceID == "" {
				return envs
			}
		}
		if out == nil {
			out = slices.Clone(envs)
		}
		var m events.Metadata
		if envs[i].Metadata != nil {
			m = *envs[i].Metadata
		}
		m.TraceID = traceID
		out[i].Metadata = &m
	}
	if out == nil {
		return envs
	}
	return out
}
