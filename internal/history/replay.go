package history

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/google/uuid"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/emit"
	"github.com/streamops/streamops/internal/store"
)

// ReplayStore is what a replay reads and records; *store.Store implements
// it.
type ReplayStore interface {
	EventFinder
	CountEvents(ctx context.Context, f store.ReplayFilter) (int64, error)
	CreateReplaySession(ctx context.Context, rs store.ReplaySession) (store.ReplaySession, error)
	SaveReplayProgress(ctx context.Context, rs store.ReplaySession) error
}

// Replayer runs replays. Every replayed event is stored before it is
// published (Emitter), so the history shows what consumers received.
type Replayer struct {
	Store ReplayStore
	// Emitter stores then publishes the replayed events. Required.
	Emitter *emit.Emitter
	// BatchSize is how many events one page reads and one flush publishes.
	// Default 500.
	BatchSize int
	Logger    *slog.Logger
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

// Replay re-publishes every event the filter selects, oldest first page by
// page (so per key the original order holds), each as a new event
// (eventId derived from the session and the original) marked
// metadata.replayOf. Progress is saved after every page; the session is
// returned when done. cfg.UserID, the principal who asked, is each
// replayed event's metadata.userId. Events with no topic of their own (webhook.received)
// need a TargetTopic and are recorded as failed without one.
func (r *Replayer) Replay(ctx context.Context, cfg store.ReplayConfig) (store.ReplaySession, error) {
	s := sessionFor(cfg)
	s.defaultBatchSize(r.BatchSize)
	log := r.Logger
	if log == nil {
		log = slog.Default()
	}
	total, err := r.Store.CountEvents(ctx, s.filter)
	if err != nil {
		return store.ReplaySession{}, err
	}
	s.id, s.total = "replay-"+uuid.NewString(), total
	if err := r.create(ctx, &s); err != nil {
		return s.document(), err
	}
	var after *store.Cursor
	for {
		docs, next, err := r.Store.FindEvents(ctx, s.filter, after, s.batchSize)
		if err != nil {
			return r.fail(ctx, &s, err)
		}
		byTopic, order := map[string][]events.Envelope{}, []string{}
		for _, d := range docs {
			env, err := d.Envelope()
			if err == nil {
				env, err = replayOf(s.id, s.userID, env)
			}
			topic := s.topic(env)
			if err == nil && topic == "" {
				err = fmt.Errorf("%s has no topic of its own: give targetTopic to replay it", d.EventType)
			}
			if err != nil {
				s.eventFailed(d.EventID, err)
				continue
			}
			if _, seen := byTopic[topic]; !seen {
				order = append(order, topic)
			}
			byTopic[topic] = append(byTopic[topic], env)
		}
		for _, topic := range order {
			envs := byTopic[topic]
			res, err := r.Emitter.EmitTo(ctx, s.targetTopic, envs...)
			if err != nil {
				return r.fail(ctx, &s, err)
			}
			s.emitted(topic, len(envs), res.Unpublished)
		}
		if next == "" {
			break
		}
		s.cursor = next
		c, _ := store.DecodeCursor(next)
		after = &c
		if err := r.save(ctx, &s); err != nil {
			return s.document(), err
		}
		log.InfoContext(ctx, "replay progress", "sessionId", s.id, "replayed", s.replayed, "failed", s.failed, "total", total)
	}
	s.finish()
	log.InfoContext(ctx, "replay finished", "sessionId", s.id, "status", s.status, "replayed", s.replayed, "failed", s.failed)
	return s.document(), r.save(ctx, &s)
}

func (r *Replayer) fail(ctx context.Context, s *session, cause error) (store.ReplaySession, error) {
	s.abort(cause)
	if err := r.save(ctx, s); err != nil {
		return s.document(), errors.Join(cause, err)
	}
	return s.document(), cause
}

// replayOf is the replay of env in session, asked for by userID: a new
// event id, the original id in metadata.replayOf, the principal who
// replays it in metadata.userId (when known; the original's is one lookup
// away by replayOf), everything else as it was.
func replayOf(session, userID string, env events.Envelope) (events.Envelope, error) {
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
	return env, nil
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
