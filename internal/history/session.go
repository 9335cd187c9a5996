package history

import (
	"time"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/fault"
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
	// rate is the most events a second the session replays.
	rate float64
	// userID is who asked for the replay (metadata.userId of its events).
	userID string
	// partnerID, when set, aims the replay at that partner's
	// subscriptions: outbox entries instead of published copies.
	partnerID string
	// status is a status.Replay… value.
	status   string
	total    int64
	replayed int64
	failed   int64
	errors   []replayError
	// dropped counts the event-level errors not kept in errors.
	dropped int64
	// snapshotAt bounds the events replayed (see snapshot).
	snapshotAt time.Time
	// cursor is the position replayed up to.
	cursor string
	// owner is the runner holding the session (its lease).
	owner string

	runningSince         *time.Time
	createdAt, updatedAt time.Time
	completedAt          *time.Time
}

// replayError is seed 001's ReplayError: every one carries errType, an
// event-level one eventID too.
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

// snapshot is the filter of what the session replays: the events its
// filter selects that were stored at or before snapshotAt, none of them a
// copy the session stored itself. The copies keep their original's
// timestamp, so without the second rule they would match the filter again
// and be replayed again; marking them (store.EventDocument.ReplaySessionID)
// rather than relying on stored_at alone holds whatever the clocks of the
// functions that store and replay say.
func (s *session) snapshot() store.ReplayFilter {
	return s.filter.WithSnapshot(s.snapshotAt, s.id)
}

// chunk is how many events one batch reads: the session's batch size, and
// no more than a tenth of a second's worth at its rate, so a rate-limited
// replay writes in small steps beside live traffic and never holds a
// lease long.
func (s *session) chunk() int {
	n := s.batchSize
	if tenth := s.rate / 10; s.rate > 0 && float64(n) > tenth {
		n = max(1, int(tenth))
	}
	return n
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
	s.eventError(id, fault.Text(err), errorType(err))
}

// eventError keeps an event-level error while fewer than
// store.MaxReplayErrors are kept, and counts it as dropped otherwise.
func (s *session) eventError(id, msg, errType string) {
	kept := 0
	for _, e := range s.errors {
		if e.eventID != "" {
			kept++
		}
	}
	if kept >= store.MaxReplayErrors {
		s.dropped++
		return
	}
	s.errors = append(s.errors, replayError{at: time.Now().UTC(), msg: msg, errType: errType, eventID: id})
}

// emitted records n events stored for topic, of which unpublished are not
// published yet: the retry-sweeper publishes them later, and the session
// records that they are late.
func (s *session) emitted(topic string, n int, unpublished []string) {
	s.failed += int64(len(unpublished))
	s.replayed += int64(n - len(unpublished))
	for _, id := range unpublished {
		s.eventError(id, "stored, not yet published to "+topic+"; the retry-sweeper publishes it", ErrTypePublish)
	}
}

// done is how many events the session went through.
func (s *session) done() int64 { return s.replayed + s.failed }

// finish ends a session that went through every event of its snapshot.
// The total becomes what it went through: the count at the start can
// differ from the snapshot walked by events stored in the same instant
// and by events the archiver deleted meanwhile.
func (s *session) finish() {
	s.total = s.done()
	s.status = status.ReplayFinished(s.failed)
}

// abort ends a session that could not go on because of cause, whose
// error is kept whatever the list holds.
func (s *session) abort(cause error) {
	s.status = status.ReplayFailed
	s.errors = append(s.errors, replayError{at: time.Now().UTC(), msg: fault.Text(cause), errType: errorType(cause)})
}

// Progress is how far a replay got: done (replayed + failed) of total,
// the rate observed since a runner first took it, and the time left at
// that rate (omitted when unknown or ended).
type Progress struct {
	Done          int64    `json:"done"`
	Total         int64    `json:"total"`
	Percent       float64  `json:"percent"`
	RatePerSecond float64  `json:"rate_per_second"`
	ETASeconds    *float64 `json:"eta_seconds,omitempty"`
}

// progress is s's Progress: the rate is what it replayed since a runner
// first took it, over the time to its last checkpoint.
func (s *session) progress() Progress {
	p := Progress{Done: s.replayed + s.failed, Total: s.total}
	ended := status.ReplayIsFinal(s.status)
	switch {
	case p.Total > 0:
		p.Percent = min(100, 100*float64(p.Done)/float64(p.Total))
	case ended:
		p.Percent = 100
	}
	if s.runningSince != nil {
		if secs := s.updatedAt.Sub(*s.runningSince).Seconds(); secs > 0 {
			p.RatePerSecond = float64(p.Done) / secs
		}
	}
	if !ended && p.RatePerSecond > 0 && p.Total >= p.Done {
		eta := float64(p.Total-p.Done) / p.RatePerSecond
		p.ETASeconds = &eta
	}
	return p
}
