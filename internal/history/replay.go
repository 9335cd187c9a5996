package history

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/google/uuid"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/deadline"
	"github.com/streamops/streamops/internal/emit"
	"github.com/streamops/streamops/internal/status"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/tracing"
)

// ReplayStore is what a replay reads and records; *store.Store implements
// it.
type ReplayStore interface {
	EventFinder
	CountEvents(ctx context.Context, f store.ReplayFilter) (int64, error)
	CreateReplaySession(ctx context.Context, rs store.ReplaySession) (store.ReplaySession, error)
	ClaimReplaySession(ctx context.Context, owner string, lease time.Duration) (store.ReplaySession, error)
	SaveReplayCheckpoint(ctx context.Context, rs store.ReplaySession, leaseUntil time.Time) error
	CancelReplaySession(ctx context.Context, id string, cause store.ReplayError) (store.ReplaySession, error)
	MarkUnpublished(ctx context.Context, eventIDs ...string) error
	EnqueueOutbox(ctx context.Context, entries ...store.OutboxEntry) (store.InsertResult, error)
}

// PartnerFanOut gives the outbox entries a replay aimed at one partner
// enqueues: those of the events its subscriptions select, with the ids
// the store's fan-out gives them (fanout.FanOut).
type PartnerFanOut interface {
	PartnerEntries(ctx context.Context, partnerID string, envs []events.Envelope) ([]store.OutboxEntry, error)
}

// ErrNoPartnerFanOut is a replay aimed at a partner (ReplayConfig.PartnerID)
// by a Replayer without Partners.
var ErrNoPartnerFanOut = errors.New("history: this replayer cannot replay to a partner's subscriptions (no partner fan-out)")

// Replay rates: a session replays at most its rate_per_second events a
// second, DefaultReplayRate when it asked for none, never more than
// MaxReplayRate.
const (
	DefaultReplayRate = 500
	MaxReplayRate     = 100000
)

// Defaults of the Replayer's job settings.
const (
	// DefaultReplayLease is how long a runner holds a session between
	// checkpoints: a runner that crashed is replaced once it expires.
	DefaultReplayLease = 30 * time.Second
	// DefaultReplayMargin is how long before its context's deadline a
	// runner stops taking batches, so the batch under way and its
	// checkpoint finish within the invocation.
	DefaultReplayMargin = 10 * time.Second
)

// ValidRate reports whether rate is one a session may replay at: (0,
// MaxReplayRate] events a second.
func ValidRate(rate float64) bool { return rate > 0 && rate <= MaxReplayRate }

// ErrInvalidRate is returned by Start for a rate that is not ValidRate.
var ErrInvalidRate = fmt.Errorf("history: ratePerSecond must be greater than 0 and at most %d", MaxReplayRate)

// Replayer runs replays as jobs: Start stores a session, RunDue (the
// retry-sweeper, on each tick) replays it batch by batch under a lease,
// from checkpoint to checkpoint, across as many invocations as it takes.
// Every replayed event is stored before it is published (Emitter), so the
// history shows what consumers received.
type Replayer struct {
	Store ReplayStore
	// Emitter stores then publishes the replayed events. Required.
	Emitter *emit.Emitter
	// Partners enqueues the replays aimed at one partner
	// (ReplayConfig.PartnerID). nil: such a replay is ErrNoPartnerFanOut.
	Partners PartnerFanOut
	// BatchSize is how many events one page reads and one flush publishes.
	// Default 500.
	BatchSize int
	// Lease is how long a runner holds a session between checkpoints.
	// Default DefaultReplayLease.
	Lease time.Duration
	// Margin is how long before the deadline RunDue stops taking batches.
	// Default DefaultReplayMargin.
	Margin time.Duration
	Logger *slog.Logger
}

// SampleSize is how many events a dry run shows.
const SampleSize = 10

// Preview is a dry run: how many events the filter selects and the first
// few, without publishing anything.
func (r *Replayer) Preview(ctx context.Context, f store.ReplayFilter) (int64, []events.Envelope, error) {
	n, err := r.Store.CountEvents(ctx, f)
	if err != nil {
		return 0, nil, err
	}
	docs, _, err := r.Store.FindEvents(ctx, f, nil, SampleSize)
	if err != nil {
		return 0, nil, err
	}
	sample, err := envelopes(docs)
	return n, sample, err
}

// Start begins a replay of every event cfg's filter selects and returns
// at once: it takes the snapshot (the events stored until now), counts
// it and stores the session as running; RunDue replays it. Each event is
// replayed as a new event (eventId derived from the session and the
// original) marked metadata.replayOf, oldest first (so per key the
// original order holds). cfg.UserID, the principal who asked, is each
// replayed event's metadata.userId. cfg.RatePerSecond 0 is
// DefaultReplayRate; outside (0, MaxReplayRate] it is ErrInvalidRate.
func (r *Replayer) Start(ctx context.Context, cfg store.ReplayConfig) (store.ReplaySession, error) {
	s := sessionFor(cfg)
	if s.rate == 0 {
		s.rate = DefaultReplayRate
	}
	if !ValidRate(s.rate) {
		return store.ReplaySession{}, ErrInvalidRate
	}
	if s.partnerID != "" && r.Partners == nil {
		return store.ReplaySession{}, ErrNoPartnerFanOut
	}
	s.defaultBatchSize(r.BatchSize)
	// A version 7 id grows with time, so sessions started in the same
	// millisecond still list newest first (store.ListReplaySessions).
	id, err := uuid.NewV7()
	if err != nil {
		return store.ReplaySession{}, err
	}
	s.id, s.snapshotAt = "replay-"+id.String(), time.Now().UTC().Truncate(time.Millisecond)
	total, err := r.Store.CountEvents(ctx, s.snapshot())
	if err != nil {
		return store.ReplaySession{}, err
	}
	s.total = total
	if err := r.create(ctx, &s); err != nil {
		return s.document(), err
	}
	r.log().InfoContext(ctx, "replay started", "sessionId", s.id, "total", total, "ratePerSecond", s.rate)
	return s.document(), nil
}

// Cancel ends a running session as cancelled; its runner stops at its
// next checkpoint. A cancelled session is returned as it is; one that
// ended otherwise is a *store.StatusConflictError.
func (r *Replayer) Cancel(ctx context.Context, id string) (store.ReplaySession, error) {
	return r.Store.CancelReplaySession(ctx, id, store.ReplayError{Timestamp: time.Now().UTC(),
		Error: errCancelled.Error(), ErrorType: ErrTypeCancelled})
}

// ReplayRunStats counts what one RunDue did.
type ReplayRunStats struct {
	// Sessions were claimed, Finished of them ended.
	Sessions int `json:"sessions"`
	Finished int `json:"finished"`
	// Batches were checkpointed.
	Batches  int   `json:"batches"`
	Replayed int64 `json:"replayed"`
	Failed   int64 `json:"failed"`
}

// RunDue replays the running sessions one at a time while ctx leaves
// time: it claims a session no runner holds (or whose runner's lease
// expired), replays it batch by batch at its rate with a checkpoint after
// each, and stops taking batches Margin before ctx's deadline, releasing
// the session for the next call, which continues from its checkpoint.
// Safe to call concurrently (the lease gives a session to one runner).
func (r *Replayer) RunDue(ctx context.Context) (ReplayRunStats, error) {
	var st ReplayRunStats
	owner := "runner-" + uuid.NewString()
	var errs []error
	for deadline.Left(ctx, r.margin()) {
		d, err := r.Store.ClaimReplaySession(ctx, owner, r.lease())
		if errors.Is(err, store.ErrNotFound) {
			break
		}
		if err != nil {
			errs = append(errs, err)
			break
		}
		st.Sessions++
		s := sessionFromDocument(d)
		if err := r.run(ctx, &s, &st); err != nil {
			errs = append(errs, err)
			break
		}
	}
	return st, errors.Join(errs...)
}

// run replays s from its cursor until it ends, its lease is lost, or ctx
// leaves no time for another batch.
func (r *Replayer) run(ctx context.Context, s *session, st *ReplayRunStats) error {
	log := r.log().With("sessionId", s.id)
	var after *store.Cursor
	if s.cursor != "" {
		c, err := store.DecodeCursor(s.cursor)
		if err != nil {
			return r.abort(ctx, s, st, err)
		}
		after = &c
	}
	filter, start, sent := s.snapshot(), time.Now(), 0
	for {
		if !deadline.Left(ctx, r.margin()) {
			return r.release(ctx, s)
		}
		docs, next, err := r.Store.FindEvents(ctx, filter, after, s.chunk())
		if err != nil {
			return r.abort(ctx, s, st, err)
		}
		// The rate: the batch goes when the events before it and its own
		// have had their time, so n events take at least n/rate.
		sent += len(docs)
		due := start.Add(time.Duration(float64(sent) / s.rate * float64(time.Second)))
		if dl, ok := ctx.Deadline(); ok && due.After(dl.Add(-r.margin())) {
			return r.release(ctx, s)
		}
		if !deadline.Sleep(ctx, time.Until(due)) {
			return r.release(ctx, s)
		}
		replayed, failed := s.replayed, s.failed
		if err := r.replayBatch(ctx, s, docs); err != nil {
			return r.abort(ctx, s, st, err)
		}
		if next == "" {
			s.finish()
		} else {
			s.cursor = next
			c, _ := store.DecodeCursor(next)
			after = &c
		}
		if err := r.checkpoint(ctx, s, time.Now().Add(r.lease())); err != nil {
			if errors.Is(err, store.ErrReplayLeaseLost) {
				log.InfoContext(ctx, "replay stopped: the session was cancelled or taken over")
				return nil
			}
			return err // the lease expires; the next runner redoes the batch
		}
		st.Batches++
		st.Replayed += s.replayed - replayed
		st.Failed += s.failed - failed
		if status.ReplayIsFinal(s.status) {
			st.Finished++
			log.InfoContext(ctx, "replay finished", "status", s.status, "replayed", s.replayed, "failed", s.failed)
			return nil
		}
		log.InfoContext(ctx, "replay progress", "replayed", s.replayed, "failed", s.failed, "total", s.total)
	}
}

// replayBatch replays docs: each as its replay (replayOf), grouped by
// topic in order of first appearance, each group stored then published.
// An event that cannot be replayed is recorded as failed; an error is
// one the whole batch failed with.
//
// The batch has a span, "replay", linked to the traces of its first
// MaxReplayLinks originals: a copy carries its original's traceId (the
// consumers handle it in that trace), and the links lead from the job to
// them.
func (r *Replayer) replayBatch(ctx context.Context, s *session, docs []store.EventDocument) (err error) {
	ctx, span := tracing.Start(ctx, "replay")
	defer func() { tracing.End(span, err) }()
	recording := span.IsRecording()
	if recording {
		span.SetAttributes(attribute.String("streamops.replay.session_id", s.id), attribute.Int("streamops.replay.events", len(docs)))
	}
	if s.partnerID != "" {
		return r.replayToPartner(ctx, s, docs)
	}
	links := 0
	byTopic, order := map[string][]events.Envelope{}, []string{}
	for _, d := range docs {
		env, err := d.Envelope()
		if err != nil {
			s.eventFailed(d.EventID, fmt.Errorf("%w: %w", errInvalidEvent, err))
			continue
		}
		if recording && links < MaxReplayLinks && env.Metadata != nil {
			if sc, ok := tracing.ProviderFrom(ctx).SpanContextOf(env.Metadata.TraceID, env.EventID); ok {
				span.AddLink(trace.Link{SpanContext: sc, Attributes: []attribute.KeyValue{attribute.String("streamops.replay_of", env.EventID)}})
				links++
			}
		}
		env = replayOf(s.id, s.userID, env)
		topic := s.topic(env)
		if topic == "" {
			s.eventFailed(d.EventID, fmt.Errorf("%s: %w", d.EventType, errNoTopic))
			continue
		}
		if _, seen := byTopic[topic]; !seen {
			order = append(order, topic)
		}
		byTopic[topic] = append(byTopic[topic], env)
	}
	for _, topic := range order {
		envs := byTopic[topic]
		stored, err := r.Emitter.StoreReplay(ctx, s.id, s.targetTopic, envs...)
		if err != nil {
			return err
		}
		res := r.Emitter.Publish(ctx, stored)
		// Stored as published: the ones that were not go back to the
		// retry-sweeper, or the batch fails before its checkpoint and is
		// run again.
		if err := r.Store.MarkUnpublished(ctx, res.Unpublished...); err != nil {
			return err
		}
		s.emitted(topic, len(envs), res.Unpublished)
	}
	return nil
}

// replayToPartner replays docs to the partner s is aimed at: the outbox
// entries of those its subscriptions select, enqueued with one unordered
// insert, the ones enqueued before (delivered by the fan-out or an
// earlier replay) ignored as duplicates. Nothing is published. Every
// event it went through counts as replayed, enqueued or not.
func (r *Replayer) replayToPartner(ctx context.Context, s *session, docs []store.EventDocument) error {
	if r.Partners == nil {
		return ErrNoPartnerFanOut
	}
	envs := make([]events.Envelope, 0, len(docs))
	for _, d := range docs {
		env, err := d.Envelope()
		if err != nil {
			s.eventFailed(d.EventID, fmt.Errorf("%w: %w", errInvalidEvent, err))
			continue
		}
		envs = append(envs, env)
	}
	entries, err := r.Partners.PartnerEntries(ctx, s.partnerID, envs)
	if err != nil {
		return err
	}
	if len(entries) > 0 {
		if _, err := r.Store.EnqueueOutbox(ctx, entries...); err != nil {
			return err
		}
	}
	s.replayed += int64(len(envs))
	return nil
}

// abort ends s as failed with cause, if its lease still holds.
func (r *Replayer) abort(ctx context.Context, s *session, st *ReplayRunStats, cause error) error {
	s.abort(cause)
	r.log().ErrorContext(ctx, "replay failed", "sessionId", s.id, "error", cause)
	if err := r.checkpoint(ctx, s, time.Now()); err != nil && !errors.Is(err, store.ErrReplayLeaseLost) {
		return errors.Join(cause, err)
	}
	st.Finished++
	return nil
}

// release gives s up at its last checkpoint, so the next runner takes it
// at once rather than when the lease would have expired.
func (r *Replayer) release(ctx context.Context, s *session) error {
	err := r.checkpoint(context.WithoutCancel(ctx), s, time.Now())
	if errors.Is(err, store.ErrReplayLeaseLost) {
		return nil
	}
	return err
}

func (r *Replayer) lease() time.Duration {
	if r.Lease > 0 {
		return r.Lease
	}
	return DefaultReplayLease
}

func (r *Replayer) margin() time.Duration {
	if r.Margin > 0 {
		return r.Margin
	}
	return DefaultReplayMargin
}

func (r *Replayer) log() *slog.Logger {
	if r.Logger != nil {
		return r.Logger
	}
	return slog.Default()
}

// MaxReplayLinks bounds the span links of one replay batch's span to its
// originals' traces (the SDK's default link limit).
const MaxReplayLinks = 128

// replayOf is the replay of env in session, asked for by userID: a new
// event id, the original id in metadata.replayOf, the principal who
// replays it in metadata.userId (when known; the original's is one lookup
// away by replayOf), everything else as it was, the original's
// metadata.traceId among it: the copy is handled in the original's trace.
func replayOf(session, userID string, env events.Envelope) events.Envelope {
	meta := events.Metadata{}
	if env.Metadata != nil {
		meta = *env.Metadata
	}
	meta.ReplayOf = env.EventID
	if userID != "" {
		meta.UserID = events.String(userID)
	}
	env.Metadata = &meta
	env.EventID = events.DeriveID(events.EventIDPrefix, session, env.EventID)
	return env
}

func envelopes(docs []store.EventDocument) ([]events.Envelope, error) {
	out := make([]events.Envelope, len(docs))
	for i, d := range docs {
		env, err := d.Envelope()
		if err != nil {
			return nil, err
		}
		out[i] = env
	}
	return out, nil
}
