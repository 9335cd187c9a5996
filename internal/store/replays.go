package store

import (
	"context"
	"errors"
	"time"

	"go.mongodb.org/mongo-driver/bson"

	"github.com/streamops/streamops/internal/status"
)

// ReplayConfig is what a replay was asked to do (seed 001 ReplayConfig).
type ReplayConfig struct {
	Filter ReplayFilter `bson:"filter" json:"filter"`
	// TargetTopic overrides each event's own topic when set.
	TargetTopic string `bson:"target_topic,omitempty" json:"target_topic,omitempty"`
	BatchSize   int    `bson:"batch_size" json:"batch_size"`
	// UserID is the principal who asked for the replay: the replayed
	// events carry it as metadata.userId (not in seed 001).
	UserID string `bson:"user_id,omitempty" json:"user_id,omitempty"`
}

// ReplayError is seed 001's ReplayError: a session-level error carries
// error_type, an event-level one event_id.
type ReplayError struct {
	Timestamp time.Time `bson:"timestamp" json:"timestamp"`
	Error     string    `bson:"error" json:"error"`
	ErrorType string    `bson:"error_type,omitempty" json:"error_type,omitempty"`
	EventID   string    `bson:"event_id,omitempty" json:"event_id,omitempty"`
}

// MaxReplayErrors caps the errors a session keeps, so a replay against a
// dead broker cannot grow its document without bound.
const MaxReplayErrors = 100

// ReplaySession is seed 001's ReplaySessionState, in replay_sessions.
type ReplaySession struct {
	ID             string        `bson:"_id" json:"session_id"`
	Config         ReplayConfig  `bson:"config" json:"config"`
	Status         string        `bson:"status" json:"status"`
	TotalEvents    int64         `bson:"total_events" json:"total_events"`
	ReplayedEvents int64         `bson:"replayed_events" json:"replayed_events"`
	FailedEvents   int64         `bson:"failed_events" json:"failed_events"`
	Errors         []ReplayError `bson:"errors" json:"errors"`
	// Cursor is the position replayed up to, so progress is resumable.
	Cursor      string     `bson:"cursor,omitempty" json:"-"`
	CreatedAt   time.Time  `bson:"created_at" json:"created_at"`
	UpdatedAt   time.Time  `bson:"updated_at" json:"updated_at"`
	CompletedAt *time.Time `bson:"completed_at,omitempty" json:"completed_at,omitempty"`
}

// CreateReplaySession stores a new session as running.
func (s *Store) CreateReplaySession(ctx context.Context, rs ReplaySession) (ReplaySession, error) {
	if rs.ID == "" {
		return rs, errors.New("store: replay session needs an id")
	}
	now := s.now()
	rs.Status, rs.CreatedAt, rs.UpdatedAt = status.ReplayRunning, now, now
	if rs.Errors == nil {
		rs.Errors = []ReplayError{}
	}
	_, err := s.replaySessions.InsertOne(ctx, rs)
	return rs, normalise(err)
}

// SaveReplayProgress records a session's counts, cursor, status and errors
// (keeping at most MaxReplayErrors).
func (s *Store) SaveReplayProgress(ctx context.Context, rs ReplaySession) error {
	if len(rs.Errors) > MaxReplayErrors {
		rs.Errors = rs.Errors[:MaxReplayErrors]
	}
	set := bson.M{
		"status": rs.Status, "replayed_events": rs.ReplayedEvents, "failed_events": rs.FailedEvents,
		"errors": rs.Errors, "cursor": rs.Cursor, "updated_at": s.now(),
	}
	if status.ReplayIsFinal(rs.Status) {
		set["completed_at"] = s.now()
	}
	res, err := s.replaySessions.UpdateOne(ctx, bson.M{"_id": rs.ID}, bson.M{"$set": set})
	if err != nil {
		return normalise(err)
	}
	if res.MatchedCount == 0 {
		return ErrNotFound
	}
	return nil
}

// GetReplaySession loads a session.
func (s *Store) GetReplaySession(ctx context.Context, id string) (ReplaySession, error) {
	return getByID[ReplaySession](ctx, s.replaySessions, id)
}
