package history

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/google/uuid"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/emit"
	"github.com/streamops/streamops/internal/store"
)

// Publisher publishes envelopes to a given topic (bus.Client).
type Publisher interface {
	PublishTo(ctx context.Context, topic string, envs ...events.Envelope) error
}

// ReplayStore is what a replay reads and records; *store.Store implements
// it.
type ReplayStore interface {
	EventFinder
	CountEvents(ctx context.Context, f store.ReplayFilter) (int64, error)
	CreateReplaySession(ctx context.Context, rs store.ReplaySession) (store.ReplaySession, error)
	SaveReplayProgress(ctx context.Context, rs store.ReplaySession) error
}

// Replayer runs replays.
type Replayer struct {
	Store     ReplayStore
	Publisher Publisher
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
// returned when done. Events with no topic of their own (webhook.received)
// need a TargetTopic and are recorded as failed without one.
func (r *Replayer) Replay(ctx context.Context, cfg store.ReplayConfig) (store.ReplaySession, error) {
	if cfg.BatchSize <= 0 {
		cfg.BatchSize = r.BatchSize
	}
	if cfg.BatchSize <= 0 {
		cfg.BatchSize = 500
	}
	log := r.Logger
	if log == nil {
		log = slog.Default()
	}
	total, err := r.Store.CountEvents(ctx, cfg.Filter)
	if err != nil {
		return store.ReplaySession{}, err
	}
	rs, err := r.Store.CreateReplaySession(ctx, store.ReplaySession{ID: "replay-" + uuid.NewString(), Config: cfg, TotalEvents: total})
	if err != nil {
		return rs, err
	}
	var after *store.Cursor
	for {
		docs, next, err := r.Store.FindEvents(ctx, cfg.Filter, after, cfg.BatchSize)
		if err != nil {
			return r.fail(ctx, rs, err)
		}
		byTopic, order := map[string][]events.Envelope{}, []string{}
		for _, d := range docs {
			env, err := d.Envelope()
			if err == nil {
				env, err = replayOf(rs.ID, env)
			}
			topic := cfg.TargetTopic
			if topic == "" {
				topic = env.EventType.Topic()
			}
			if err == nil && topic == "" {
				err = fmt.Errorf("%s has no topic of its own: give targetTopic to replay it", d.EventType)
			}
			if err != nil {
				rs.FailedEvents++
				rs.Errors = append(rs.Errors, store.ReplayError{Timestamp: time.Now().UTC(), Error: err.Error(), EventID: d.EventID})
				continue
			}
			if _, seen := byTopic[topic]; !seen {
				order = append(order, topic)
			}
			byTopic[topic] = append(byTopic[topic], env)
		}
		for _, topic := range order {
			envs := byTopic[topic]
			if err := r.Publisher.PublishTo(ctx, topic, envs...); err != nil {
				failed := failedIDs(err, envs)
				rs.FailedEvents += int64(len(failed))
				rs.ReplayedEvents += int64(len(envs) - len(failed))
				now := time.Now().UTC()
				rs.Errors = append(rs.Errors, store.ReplayError{Timestamp: now, Error: truncate(err.Error(), 1024), ErrorType: fmt.Sprintf("%T", err)})
				for _, id := range failed {
					rs.Errors = append(rs.Errors, store.ReplayError{Timestamp: now, Error: "not published to " + topic, EventID: id})
				}
				continue
			}
			rs.ReplayedEvents += int64(len(envs))
		}
		if next == "" {
			break
		}
		rs.Cursor = next
		c, _ := store.DecodeCursor(next)
		after = &c
		if err := r.Store.SaveReplayProgress(ctx, rs); err != nil {
			return rs, err
		}
		log.InfoContext(ctx, "replay progress", "sessionId", rs.ID, "replayed", rs.ReplayedEvents, "failed", rs.FailedEvents, "total", total)
	}
	rs.Status = store.ReplayCompleted
	if rs.FailedEvents > 0 {
		rs.Status = store.ReplayFailed
	}
	log.InfoContext(ctx, "replay finished", "sessionId", rs.ID, "status", rs.Status, "replayed", rs.ReplayedEvents, "failed", rs.FailedEvents)
	return rs, r.Store.SaveReplayProgress(ctx, rs)
}

func (r *Replayer) fail(ctx context.Context, rs store.ReplaySession, cause error) (store.ReplaySession, error) {
	rs.Status = store.ReplayFailed
	rs.Errors = append(rs.Errors, store.ReplayError{Timestamp: time.Now().UTC(), Error: cause.Error(), ErrorType: fmt.Sprintf("%T", errors.Unwrap(cause))})
	if err := r.Store.SaveReplayProgress(ctx, rs); err != nil {
		return rs, errors.Join(cause, err)
	}
	return rs, cause
}

// replayOf is the replay of env in session: a new event id, the original
// id in metadata.replayOf, everything else as it was.
func replayOf(session string, env events.Envelope) (events.Envelope, error) {
	meta := events.Metadata{}
	if env.Metadata != nil {
		meta = *env.Metadata
	}
	meta.ReplayOf = env.EventID
	env.Metadata = &meta
	env.EventID = events.DeriveID(events.EventIDPrefix, session, env.EventID)
	return env, nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

func failedIDs(err error, envs []events.Envelope) []string {
	var ids []string
	failed := emit.Unpublished(err, envs)
	for _, e := range envs {
		if failed[e.EventID] {
			ids = append(ids, e.EventID)
		}
	}
	return ids
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
