package history

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/jsonbody"
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

func TestARequeuedDeadLetterGoesBackAsItArrived(t *testing.T) {
	dl := deadLetterFromDocument(store.DeadLetterEntry{ID: "dl-1", DeadLetterID: "dl-1", Topic: "workflows",
		Value: []byte(`not json`), Headers: []store.DeadLetterHeader{{Key: "h", Value: "v"}}})
	rec := dl.record("")
	assert.Nil(t, rec.Key, "no key stays no key")
	assert.Equal(t, "workflows", rec.Topic)
	require.Len(t, rec.Headers, 2)
	assert.Equal(t, HeaderRequeuedFrom, rec.Headers[1].Key)
	rec = dl.record("alice")
	require.Len(t, rec.Headers, 3, "a requeue by a principal names it")
	assert.Equal(t, HeaderRequeuedBy, rec.Headers[2].Key)
	assert.Equal(t, "alice", string(rec.Headers[2].Value))
	assert.Equal(t, []byte(`not json`), rec.Value, "the record's value, its event, is as it arrived")
	_, ok := dl.envelope()
	assert.False(t, ok, "a value that is not an envelope is no event")

	deep := `{"eventId":"evt-1","eventType":"workflow.created","payload":` + strings.Repeat("[", jsonbody.MaxEventDepth) +
		strings.Repeat("]", jsonbody.MaxEventDepth) + `}`
	_, ok = deadLetterFromDocument(store.DeadLetterEntry{Value: []byte(deep)}).envelope()
	assert.False(t, ok, "a value nested past the consumers' limit is no event to store: it goes back as it is")

	dl = deadLetterFromDocument(store.DeadLetterEntry{Key: "wf-1", Value: []byte(`{"eventId":"evt-1","eventType":"workflow.created"}`)})
	assert.Equal(t, []byte("wf-1"), dl.record("").Key)
	env, ok := dl.envelope()
	assert.True(t, ok)
	assert.Equal(t, "evt-1", env.EventID)
}
