package history

import (
	"context"
	"time"

	"github.com/streamops/streamops/internal/store"
)

// The one place this package's session and deadLetter meet their store
// documents: a replay starts from a store.ReplayConfig (sessionFor), is
// stored with create and checkpoint and returned as a store.ReplaySession
// (document); a dead letter to requeue is read with
// deadLetterFromDocument. Nothing else in this package reads a replay's or
// a dead letter's document fields.

// sessionFor is a new session replaying what cfg asks for.
func sessionFor(cfg store.ReplayConfig) session {
	return session{filter: cfg.Filter, targetTopic: cfg.TargetTopic, batchSize: cfg.BatchSize, rate: cfg.RatePerSecond, userID: cfg.UserID, partnerID: cfg.PartnerID}
}

// sessionFromDocument is the session a replay_sessions document holds.
func sessionFromDocument(d store.ReplaySession) session {
	s := session{
		id: d.ID, filter: d.Config.Filter, targetTopic: d.Config.TargetTopic, batchSize: d.Config.BatchSize,
		rate: d.Config.RatePerSecond, userID: d.Config.UserID, partnerID: d.Config.PartnerID,
		status: d.Status, total: d.TotalEvents, replayed: d.ReplayedEvents, failed: d.FailedEvents, dropped: d.ErrorsDropped,
		snapshotAt: d.SnapshotAt, cursor: d.Cursor, owner: d.LeaseOwner, runningSince: d.RunningSince,
		createdAt: d.CreatedAt, updatedAt: d.UpdatedAt, completedAt: d.CompletedAt,
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
		ID: s.id, Config: store.ReplayConfig{Filter: s.filter, TargetTopic: s.targetTopic, BatchSize: s.batchSize,
			RatePerSecond: s.rate, UserID: s.userID, PartnerID: s.partnerID},
		Status: s.status, TotalEvents: s.total, ReplayedEvents: s.replayed, FailedEvents: s.failed,
		Errors: errs, ErrorsDropped: s.dropped, SnapshotAt: s.snapshotAt, Cursor: s.cursor, LeaseOwner: s.owner,
		RunningSince: s.runningSince, CreatedAt: s.createdAt, UpdatedAt: s.updatedAt, CompletedAt: s.completedAt,
	}
}

// create stores s as a new, running session.
func (r *Replayer) create(ctx context.Context, s *session) error {
	d, err := r.Store.CreateReplaySession(ctx, s.document())
	*s = sessionFromDocument(d)
	return err
}

// checkpoint records s's progress in one update fenced by its lease
// (store.ErrReplayLeaseLost when the session was cancelled or taken
// over), extending the lease to leaseUntil.
func (r *Replayer) checkpoint(ctx context.Context, s *session, leaseUntil time.Time) error {
	return r.Store.SaveReplayCheckpoint(ctx, s.document(), leaseUntil)
}

// deadLetterFromDocument is the deadLetter a dead_letters document holds.
func deadLetterFromDocument(d store.DeadLetterEntry) deadLetter {
	dl := deadLetter{id: d.ID, deadLetterID: d.DeadLetterID, topic: d.Topic, key: d.Key, value: d.Value}
	for _, h := range d.Headers {
		dl.headers = append(dl.headers, header{key: h.Key, value: h.Value})
	}
	return dl
}

// ProgressOf is the progress the replay_sessions document d records.
func ProgressOf(d store.ReplaySession) Progress {
	s := sessionFromDocument(d)
	return s.progress()
}
