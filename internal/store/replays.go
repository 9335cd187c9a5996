package store

import (
	"context"
	"errors"
	"time"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo/options"

	"github.com/streamops/streamops/internal/status"
)

// ReplayConfig is what a replay was asked to do (seed 001 ReplayConfig).
type ReplayConfig struct {
	Filter ReplayFilter `bson:"filter" json:"filter"`
	// TargetTopic overrides each event's own topic when set.
	TargetTopic string `bson:"target_topic,omitempty" json:"target_topic,omitempty"`
	BatchSize   int    `bson:"batch_size" json:"batch_size"`
	// RatePerSecond caps how many events the session replays a second,
	// so a large replay leaves the brokers and the store to live traffic
	// (not in seed 001). 0 means the replayer's default.
	RatePerSecond float64 `bson:"rate_per_second,omitempty" json:"rate_per_second,omitempty"`
	// UserID is the principal who asked for the replay: the replayed
	// events carry it as metadata.userId (not in seed 001).
	UserID string `bson:"user_id,omitempty" json:"user_id,omitempty"`
	// PartnerID aims the replay at one partner's subscriptions: each
	// event they select is enqueued for that partner with the id the
	// store's fan-out gives it (SubscriptionOutboxID), instead of being
	// published, so what was delivered is not delivered again (not in
	// seed 001).
	PartnerID string `bson:"partner_id,omitempty" json:"partner_id,omitempty"`
}

// ReplayError is seed 001's ReplayError: a session-level error carries
// error_type, an event-level one event_id too.
type ReplayError struct {
	Timestamp time.Time `bson:"timestamp" json:"timestamp"`
	Error     string    `bson:"error" json:"error"`
	ErrorType string    `bson:"error_type,omitempty" json:"error_type,omitempty"`
	EventID   string    `bson:"event_id,omitempty" json:"event_id,omitempty"`
}

// MaxReplayErrors caps the event-level errors a session keeps, so a
// replay against a dead broker cannot grow its document without bound;
// the rest are counted (ReplaySession.ErrorsDropped). The session-level
// error that ended a session is kept beyond it.
const MaxReplayErrors = 100

// ReplaySession is seed 001's ReplaySessionState, in replay_sessions, with
// what the background job needs: the snapshot it replays, its cursor and
// the lease of the runner that holds it.
type ReplaySession struct {
	ID             string        `bson:"_id" json:"session_id"`
	Config         ReplayConfig  `bson:"config" json:"config"`
	Status         string        `bson:"status" json:"status"`
	TotalEvents    int64         `bson:"total_events" json:"total_events"`
	ReplayedEvents int64         `bson:"replayed_events" json:"replayed_events"`
	FailedEvents   int64         `bson:"failed_events" json:"failed_events"`
	Errors         []ReplayError `bson:"errors" json:"errors"`
	// ErrorsDropped counts the event-level errors not kept in Errors.
	ErrorsDropped int64 `bson:"errors_dropped,omitempty" json:"errors_dropped"`
	// SnapshotAt bounds what the session replays: events stored at or
	// before it (see history.Replayer.Start).
	SnapshotAt time.Time `bson:"snapshot_at" json:"snapshot_at"`
	// Cursor is the position replayed up to, so progress is resumable.
	Cursor string `bson:"cursor,omitempty" json:"-"`
	// LeaseOwner is the runner replaying the session until LeaseUntil;
	// a checkpoint is accepted from it only (SaveReplayCheckpoint).
	LeaseOwner string     `bson:"lease_owner,omitempty" json:"-"`
	LeaseUntil *time.Time `bson:"lease_until,omitempty" json:"-"`
	// RunningSince is when a runner first took the session: the observed
	// rate counts from it.
	RunningSince *time.Time `bson:"running_since,omitempty" json:"-"`
	CreatedAt    time.Time  `bson:"created_at" json:"created_at"`
	UpdatedAt    time.Time  `bson:"updated_at" json:"updated_at"`
	CompletedAt  *time.Time `bson:"completed_at,omitempty" json:"completed_at,omitempty"`
}

// ErrReplayLeaseLost is returned by SaveReplayCheckpoint when the session
// is no longer running under the caller's lease: it was cancelled, or
// another runner took it over after the lease expired. The caller stops.
var ErrReplayLeaseLost = errors.New("store: replay session no longer held by this runner")

// CreateReplaySession stores a new session as running, with no runner.
func (s *Store) CreateReplaySession(ctx context.Context, rs ReplaySession) (ReplaySession, error) {
	if rs.ID == "" {
		return rs, errors.New("store: replay session needs an id")
	}
	now := s.now()
	rs.Status, rs.CreatedAt, rs.UpdatedAt = status.ReplayRunning, now, now
	rs.LeaseOwner, rs.LeaseUntil = "", nil
	if rs.Errors == nil {
		rs.Errors = []ReplayError{}
	}
	_, err := s.replaySessions.InsertOne(ctx, rs)
	return rs, normalise(err)
}

// ClaimReplaySession takes the oldest running session no runner holds (no
// lease, or an expired one: its runner crashed or timed out) for owner
// until now+lease, with one find-and-update, so two runners never hold
// one session. ErrNotFound when none is free.
func (s *Store) ClaimReplaySession(ctx context.Context, owner string, lease time.Duration) (ReplaySession, error) {
	if owner == "" || lease <= 0 {
		return ReplaySession{}, errors.New("store: ClaimReplaySession needs an owner and a positive lease")
	}
	now := s.now()
	free := bson.M{"status": status.ReplayRunning, "$or": bson.A{
		bson.M{"lease_until": bson.M{"$exists": false}},
		bson.M{"lease_until": nil},
		bson.M{"lease_until": bson.M{"$lte": now}},
	}}
	// running_since is set by the first claim only ($min keeps the
	// earlier time).
	var got ReplaySession
	err := s.replaySessions.FindOneAndUpdate(ctx, free, bson.M{
		"$set": bson.M{"lease_owner": owner, "lease_until": now.Add(lease), "updated_at": now},
		"$min": bson.M{"running_since": now},
	}, options.FindOneAndUpdate().SetSort(bson.D{{Key: "created_at", Value: 1}, {Key: "_id", Value: 1}}).
		SetReturnDocument(options.After)).Decode(&got)
	return got, normalise(err)
}

// SaveReplayCheckpoint records a session's progress (status, counts,
// cursor, errors) in one update that holds only while the session is
// running under rs.LeaseOwner's lease, and extends that lease to
// leaseUntil. A session that ends (a final status) records completed_at
// and drops the lease. ErrReplayLeaseLost when the fence does not hold:
// nothing was written.
func (s *Store) SaveReplayCheckpoint(ctx context.Context, rs ReplaySession, leaseUntil time.Time) error {
	now := s.now()
	set := bson.M{
		"status": rs.Status, "replayed_events": rs.ReplayedEvents, "failed_events": rs.FailedEvents,
		"total_events": rs.TotalEvents, "errors": nonNil(rs.Errors), "errors_dropped": rs.ErrorsDropped,
		"cursor": rs.Cursor, "updated_at": now,
	}
	update := bson.M{"$set": set}
	if status.ReplayIsFinal(rs.Status) {
		set["completed_at"] = now
		update["$unset"] = bson.M{"lease_owner": "", "lease_until": ""}
	} else {
		set["lease_until"] = bsonTime(leaseUntil)
	}
	res, err := s.replaySessions.UpdateOne(ctx,
		bson.M{"_id": rs.ID, "status": status.ReplayRunning, "lease_owner": rs.LeaseOwner}, update)
	if err != nil {
		return normalise(err)
	}
	if res.MatchedCount == 0 {
		return ErrReplayLeaseLost
	}
	return nil
}

// CancelReplaySession ends a running session as cancelled, with cause as
// its session-level error (kept whatever the list holds); its runner sees
// it at its next checkpoint and stops. A cancelled session is returned as
// it is; one that ended otherwise is a *StatusConflictError.
func (s *Store) CancelReplaySession(ctx context.Context, id string, cause ReplayError) (ReplaySession, error) {
	now := s.now()
	res, err := s.replaySessions.UpdateOne(ctx, bson.M{"_id": id, "status": status.ReplayRunning}, bson.M{
		"$set":   bson.M{"status": status.ReplayCancelled, "updated_at": now, "completed_at": now},
		"$push":  bson.M{"errors": cause},
		"$unset": bson.M{"lease_owner": "", "lease_until": ""},
	})
	if err != nil {
		return ReplaySession{}, normalise(err)
	}
	rs, err := s.GetReplaySession(ctx, id)
	if err != nil || res.ModifiedCount > 0 || rs.Status == status.ReplayCancelled {
		return rs, err
	}
	return rs, &StatusConflictError{Action: "cancel", Status: rs.Status, Allowed: []string{status.ReplayRunning}}
}

// ListReplaySessions returns up to limit sessions, newest first.
func (s *Store) ListReplaySessions(ctx context.Context, limit int) ([]ReplaySession, error) {
	return findAll[ReplaySession](ctx, s.replaySessions, bson.M{},
		options.Find().SetSort(bson.D{{Key: "created_at", Value: -1}, {Key: "_id", Value: -1}}).SetLimit(int64(limit)))
}

// GetReplaySession loads a session.
func (s *Store) GetReplaySession(ctx context.Context, id string) (ReplaySession, error) {
	return getByID[ReplaySession](ctx, s.replaySessions, id)
}

// nonNil is errs, or an empty list: a session's errors are a list even
// when there are none.
func nonNil(errs []ReplayError) []ReplayError {
	if errs == nil {
		return []ReplayError{}
	}
	return errs
}
