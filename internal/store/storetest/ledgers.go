package storetest

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/store"
)

// testPublishLedgers: events stored under a publish ledger are stored as
// published, off the sweeper's list, while the ledger stands for their
// marks; closing it hands back only what its publish missed; a ledger
// left open is reopened once older than the sweeper's wait, its events
// back on the pending path with their first stored_at and topic.
func testPublishLedgers(t *testing.T, open Opener) {
	clock := NewClock()
	s := open(t, store.Config{Now: clock.Now})
	batch := func(n int) []events.Envelope {
		out := make([]events.Envelope, n)
		for i := range out {
			out[i] = taskCreated(clock.Now())
		}
		return out
	}
	pendingIDs := func() []string {
		docs, err := s.UnpublishedEvents(ctx(t), clock.Now().Add(time.Hour), 100)
		require.NoError(t, err)
		ids := make([]string, len(docs))
		for i, d := range docs {
			ids[i] = d.EventID
		}
		return ids
	}
	ledgers := func() int {
		docs, err := s.Documents(ctx(t), store.CollPublishLedgers)
		require.NoError(t, err)
		return len(docs)
	}

	closed := batch(3)
	res, id, err := s.InsertLedgeredEventsTo(ctx(t), "", closed)
	require.NoError(t, err)
	require.NotEmpty(t, id)
	assert.Len(t, res.Inserted, 3)
	doc, err := s.GetEvent(ctx(t), closed[0].EventID)
	require.NoError(t, err)
	assert.False(t, doc.PublishPending, "stored as published")
	require.NotNil(t, doc.PublishedAt)
	assert.Empty(t, pendingIDs(), "the open ledger stands for their marks")
	require.NoError(t, s.CloseLedger(ctx(t), id, closed[1].EventID))
	assert.Equal(t, []string{closed[1].EventID}, pendingIDs(), "only what the publish missed")
	assert.Zero(t, ledgers())
	require.NoError(t, s.MarkPublished(ctx(t), closed[1].EventID))

	crashed := batch(4)
	_, _, err = s.InsertLedgeredEventsTo(ctx(t), events.TopicTasks+".replay", crashed)
	require.NoError(t, err)
	require.NoError(t, s.CloseLedger(ctx(t), "no-such-ledger"), "closing an unknown ledger is no error")
	storedAt := clock.Now()
	clock.Advance(time.Minute)
	younger := batch(2)
	_, _, err = s.InsertLedgeredEventsTo(ctx(t), "", younger)
	require.NoError(t, err)
	_, _, err = s.InsertLedgeredEventsTo(ctx(t), "", nil)
	require.NoError(t, err, "nothing to store: no ledger")
	assert.Equal(t, 2, ledgers())

	n, err := s.ReopenLedgers(ctx(t), storedAt, 10)
	require.NoError(t, err)
	assert.Equal(t, 1, n, "only the ledger old enough")
	want := []string{crashed[0].EventID, crashed[1].EventID, crashed[2].EventID, crashed[3].EventID}
	assert.ElementsMatch(t, want, pendingIDs())
	doc, err = s.GetEvent(ctx(t), crashed[0].EventID)
	require.NoError(t, err)
	assert.Equal(t, storedAt, doc.StoredAt, "with their first stored_at: due for the sweeper at once")
	assert.Equal(t, events.TopicTasks+".replay", doc.PublishTopic, "to the topic it was stored for")
	assert.Equal(t, 1, ledgers())

	n, err = s.ReopenLedgers(ctx(t), clock.Now(), 10)
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	assert.Zero(t, ledgers())
	assert.Len(t, pendingIDs(), 6)
}
