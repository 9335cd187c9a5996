package history

import (
	"errors"
	"fmt"
	"time"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/status"
	"github.com/streamops/streamops/internal/store"
)

// defaultReplayBatchSize is a replay's page size when neither the request
// nor the Replayer sets one.
const defaultReplayBatchSize = 500

// session is a replay as this package decides it: what it replays, how far
// it got and how it ended. The methods are its transitions; the store
// persists it as a replay_sessions document (see persist.go).
type session struct {
	id          string
	filter      store.ReplayFilter
	targetTopic string
	batchSize   int
	// userID is who asked for the replay (metadata.userId of its events).
	userID string
	// status is a status.Replay… value.
	status   string
	total    int64
	replayed int64
	failed   int64
	errors   []replayError
	// cursor is the position replayed up to.
	cursor string

	createdAt, updatedAt time.Time
}

// replayError is seed 001's ReplayError: a session-level one carries
// errType, an event-level one eventID.
type replayError struct {
	at      time.Time
	msg     string
	errType string
	eventID string
}

// defaultBatchSize gives a session that asked for no page size the
// Replayer's, or defaultReplayBatchSize.
func (s *session) defaultBatchSize(replayer int) {
	if s.batchSize <= 0 {
		s.batchSize = replayer
	}
	if s.batchSize <= 0 {
		s.batchSize = defaultReplayBatchSize
	}
}

// topic is where env is replayed: the session's target topic, or env's
// own ("" when it has none).
func (s *session) topic(env events.Envelope) string {
	if s.targetTopic != "" {
		return s.targetTopic
	}
	return env.EventType.Topic()
}

// eventFailed records that event id could not be replayed.
func (s *session) eventFailed(id string, err error) {
	s.failed++
	s.errors = append(s.errors, replayError{at: time.Now().UTC(), msg: err.Error(), eventID: id})
}

// emitted records n events stored for topic, of which unpublished are not
// published yet: the retry-sweeper publishes them later, and the session
// records that they are late.
func (s *session) emitted(topic string, n int, unpublished []string) {
	s.failed += int64(len(unpublished))
	s.replayed += int64(n - len(unpublished))
	now := time.Now().UTC()
	for _, id := range unpublished {
		s.errors = append(s.errors, replayError{at: now, msg: "stored, not yet published to " + topic + "; the retry-sweeper publishes it", eventID: id})
	}
}

// finish ends a session that went through every event.
func (s *session) finish() { s.status = status.ReplayFinished(s.failed) }

// abort ends a session that could not go on because of cause.
func (s *session) abort(cause error) {
	s.status = status.ReplayFailed
	s.errors = append(s.errors, replayError{at: time.Now().UTC(), msg: cause.Error(), errType: fmt.Sprintf("%T", errors.Unwrap(cause))})
}
