package history

import (
	"context"

	"github.com/streamops/streamops/internal/store"
)

// The one place this package's session and deadLetter meet their store
// documents: a replay starts from a store.ReplayConfig (sessionFor), is
// stored with create and save and returned as a store.ReplaySession
// (document); a dead letter to requeue is read with deadLetterFromDocument.
// Nothing else in this package reads a replay's or a dead letter's
// document fields.

// sessionFor is a new session replaying what cfg asks for.
func sessionFor(cfg store.ReplayConfig) session {
	return session{filter: cfg.Filter, targetTopic: cfg.TargetTopic, batchSize: cfg.BatchSize, userID: cfg.UserID}
}

// sessionFromDocument is the session a replay_sessions document holds.
func sessionFromDocument(d store.ReplaySession) session {
	s := session{
		id: d.ID, filter: d.Config.Filter, targetTopic: d.Config.TargetTopic, batchSize: d.Config.BatchSize, userID: d.Config.UserID,
		status: d.Status, total: d.TotalEvents, replayed: d.ReplayedEvents, failed: d.FailedEvents,
		cursor: d.Cursor, createdAt: d.CreatedAt, updatedAt: d.UpdatedAt,
	}
	for _, e := range d.Errors {
		s.errors = append(s.errors, replayError{at: e.Timestamp, msg: e.Error, errType: e.ErrorType, eventID: e.EventID})
	}
	return s
}

// document is the replay_sessions document that holds s.
func (s *session) document() store.ReplaySession {
	errs := make([]store.ReplayError, len(s.errors))
	for i, e := range s.errors {
		errs[i] = store.ReplayError{Timestamp: e.at, Error: e.msg, ErrorType: e.errType, EventID: e.eventID}
	}
	return store.ReplaySession{
		ID: s.id, Config: store.ReplayConfig{Filter: s.filter, TargetTopic: s.targetTopic, BatchSize: s.batchSize, UserID: s.userID},
		Status: s.status, TotalEvents: s.total, ReplayedEvents: s.replayed, FailedEvents: s.failed,
		Errors: errs, Cursor: s.cursor, CreatedAt: s.createdAt, UpdatedAt: s.updatedAt,
	}
}

// create stores s as a new, running session.
func (r *Replayer) create(ctx context.Context, s *session) error {
	d, err := r.Store.CreateReplaySession(ctx, s.document())
	*s = sessionFromDocument(d)
	return err
}

// save records s's progress.
func (r *Replayer) save(ctx context.Context, s *session) error {
	return r.Store.SaveReplayProgress(ctx, s.document())
}

// deadLetterFromDocument is the deadLetter a dead_letters document holds.
func deadLetterFromDocument(d store.DeadLetterEntry) deadLetter {
	dl := deadLetter{id: d.ID, deadLetterID: d.DeadLetterID, topic: d.Topic, key: d.Key, value: d.Value}
	for _, h := range d.Headers {
		dl.headers = append(dl.headers, header{key: h.Key, value: h.Value})
	}
	return dl
}
