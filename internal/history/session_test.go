package history

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/status"
	"github.com/streamops/streamops/internal/store"
)

func TestReplayPageSizeComesFromTheRequestThenTheReplayerThen500(t *testing.T) {
	for _, c := range []struct{ asked, replayer, want int }{
		{20, 100, 20},
		{0, 100, 100},
		{0, 0, 500},
		{-1, -1, 500},
	} {
		s := sessionFor(store.ReplayConfig{BatchSize: c.asked})
		s.defaultBatchSize(c.replayer)
		assert.Equal(t, c.want, s.batchSize, "asked %d, replayer %d", c.asked, c.replayer)
	}
}

func TestReplayedEventsGoToTheTargetTopicOrTheirOwn(t *testing.T) {
	own := session{}
	assert.Equal(t, events.TopicWorkflows, own.topic(events.Envelope{EventType: events.WorkflowCreated}))
	assert.Empty(t, own.topic(events.Envelope{EventType: events.WebhookReceived}), "webhook.received has no topic")
	target := session{targetTopic: "replays"}
	assert.Equal(t, "replays", target.topic(events.Envelope{EventType: events.WebhookReceived}))
}

func TestSessionCountsAndEndsAsTheSeedSays(t *testing.T) {
	s := session{status: status.ReplayRunning}
	s.emitted("workflows", 3, nil)
	s.finish()
	assert.Equal(t, status.ReplayCompleted, s.status)
	assert.EqualValues(t, 3, s.replayed)

	s.emitted("workflows", 2, []string{"evt-1"})
	s.eventFailed("evt-2", errors.New("no topic"))
	s.finish()
	assert.Equal(t, status.ReplayFailed, s.status, "an event that did not replay fails the session")
	assert.EqualValues(t, 4, s.replayed)
	assert.EqualValues(t, 2, s.failed)

	s.abort(errors.New("broker down"))
	d := s.document()
	require.Len(t, d.Errors, 3)
	assert.Equal(t, "evt-1", d.Errors[0].EventID)
	assert.Equal(t, "evt-2", d.Errors[1].EventID)
	assert.Equal(t, "broker down", d.Errors[2].Error)
	assert.NotEmpty(t, d.Errors[2].ErrorType, "a session-level error carries its type")
	assert.Equal(t, s, sessionFromDocument(d), "the document holds the whole session")
}
