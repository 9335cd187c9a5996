package storetest

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/internal/status"
	"github.com/streamops/streamops/internal/store"
)

// testRequeue: an operator's requeue applies to a dead letter alone and
// starts a new round of attempts (attempts 0, due now, who and when
// recorded, max_attempts kept); its partner delivery goes back to PENDING
// with no attempts, and the round's first attempt is attempt 1 again. Any
// other status is a conflict naming it, and changes nothing.
func testRequeue(t *testing.T, open Opener) {
	clock := NewClock()
	s := open(t, store.Config{Now: clock.Now})
	entries := outboxEntries(6, clock.Now(), 0)
	enqueue(t, s, entries)
	id := func(i int) string { return entries[i].OutboxID }
	later := clock.Now().Add(time.Hour)

	byID := claimAll(t, s, clock.Now(), 6)
	_, err := s.SettleOutbox(ctx(t),
		store.Settlement{Entry: byID[id(0)], Outcome: status.OutcomeDeferred, NextAttemptAt: later}, // pending again
		store.Settlement{Entry: byID[id(2)], Outcome: status.OutcomeDelivered},
		store.Settlement{Entry: byID[id(3)], Outcome: status.OutcomeRetry, NextAttemptAt: later, Error: "HTTP 503"},
		store.Settlement{Entry: byID[id(4)], Outcome: status.OutcomeDeadLettered, Error: "HTTP 410"},
		store.Settlement{Entry: byID[id(5)], Outcome: status.OutcomeRetry, NextAttemptAt: clock.Now(), Error: "HTTP 500"},
	) // id(1) stays processing
	require.NoError(t, err)
	for range store.DefaultMaxAttempts - 1 { // id(5) fails its other four attempts
		again, err := s.ClaimDue(ctx(t), clock.Now(), time.Minute, 10)
		require.NoError(t, err)
		require.Len(t, again, 1)
		require.NoError(t, s.MarkFailed(ctx(t), again[0], clock.Now(), "HTTP 500"))
	}

	// The partner deliveries of the dead letters: refused at the first
	// attempt, and failed five times.
	deliveries := map[string]string{}
	for i, c := range []struct {
		entry, status string
		attempts      int
	}{{id(4), status.PartnerDeadLetter, 1}, {id(5), status.PartnerFailed, 5}, {"", status.PartnerFailed, 5}} {
		ev := partnerEvent("acme", fmt.Sprintf("order-requeue-%d", i), c.status, c.attempts, clock.Now())
		ev.EventDirection, ev.OutboxID = status.DirectionOut, c.entry
		stored, err := s.InsertPartnerEvent(ctx(t), ev)
		require.NoError(t, err)
		deliveries[c.entry] = stored.ID
	}

	for _, c := range []struct {
		name, id, status string
	}{
		{"pending", id(0), status.OutboxPending},
		{"processing", id(1), status.OutboxProcessing},
		{"completed", id(2), status.OutboxCompleted},
		{"failed: its retry is scheduled", id(3), status.OutboxFailed},
	} {
		t.Run(c.name, func(t *testing.T) {
			before, err := s.GetOutboxEntry(ctx(t), c.id)
			require.NoError(t, err)
			require.Equal(t, c.status, before.Status)
			_, err = s.RequeueOutboxEntry(ctx(t), c.id, "alice")
			require.ErrorIs(t, err, store.ErrStatusConflict)
			var conflict *store.StatusConflictError
			require.True(t, errors.As(err, &conflict))
			assert.Equal(t, c.status, conflict.Status)
			assert.Equal(t, []string{status.OutboxDeadLetter}, conflict.Allowed)
			after, err := s.GetOutboxEntry(ctx(t), c.id)
			require.NoError(t, err)
			assert.Equal(t, before, after, "a refused requeue changes nothing")
		})
	}
	_, err = s.RequeueOutboxEntry(ctx(t), "no-such-entry", "alice")
	assert.ErrorIs(t, err, store.ErrNotFound)

	clock.Advance(time.Second)
	for _, c := range []struct {
		name, id, lastError string
		attempts            int
	}{
		{"refused at the first attempt", id(4), "HTTP 410", 1},
		{"five attempts spent", id(5), "HTTP 500", 5},
	} {
		t.Run(c.name, func(t *testing.T) {
			before, err := s.GetOutboxEntry(ctx(t), c.id)
			require.NoError(t, err)
			require.Equal(t, status.OutboxDeadLetter, before.Status)
			require.Equal(t, c.attempts, before.Attempts)
			e, err := s.RequeueOutboxEntry(ctx(t), c.id, "alice")
			require.NoError(t, err)
			assert.Equal(t, status.OutboxPending, e.Status)
			assert.Zero(t, e.Attempts, "a new round")
			assert.Equal(t, store.DefaultMaxAttempts, e.MaxAttempts)
			assert.Equal(t, clock.Now(), e.NextAttemptAt, "due now")
			assert.Equal(t, "alice", e.RequeuedBy)
			require.NotNil(t, e.RequeuedAt)
			assert.Equal(t, clock.Now(), *e.RequeuedAt)
			assert.Equal(t, 1, e.Requeues)
			assert.Equal(t, c.lastError, e.LastError, "why the previous round ended, until the next attempt")
			stored, err := s.GetOutboxEntry(ctx(t), c.id)
			require.NoError(t, err)
			assert.Equal(t, e, stored, "the answer is the stored entry")

			ev, err := s.GetPartnerEvent(ctx(t), deliveries[c.id])
			require.NoError(t, err)
			assert.Equal(t, status.PartnerPending, ev.EventStatus)
			assert.Empty(t, ev.EntityMetadata.ResilienceAttemptCount, "the new round has no attempt yet")

			_, err = s.RequeueOutboxEntry(ctx(t), c.id, "bob")
			var conflict *store.StatusConflictError
			require.ErrorAs(t, err, &conflict, "requeued once")
			assert.Equal(t, status.OutboxPending, conflict.Status)
		})
	}

	// The relay claims the new rounds: attempt 1 each, recorded as
	// resilienceAttemptCount 1 alone, and a failure is seed 000's "Failed
	// Events for Retry" again.
	again, err := s.ClaimDue(ctx(t), clock.Now(), time.Minute, 10)
	require.NoError(t, err)
	require.Len(t, again, 2)
	for _, e := range again {
		assert.Equal(t, 1, e.Attempts, e.OutboxID)
		require.NoError(t, s.RecordPartnerAttempt(ctx(t), deliveries[e.OutboxID], 1, clock.Now(), status.PartnerFailed))
	}
	// A requeue that did not reach its partner delivery: the round's first
	// attempt replaces the earlier round's attempts all the same.
	require.NoError(t, s.RecordPartnerAttempt(ctx(t), deliveries[""], 1, clock.Now(), status.PartnerFailed))
	retry, err := s.FailedPartnerEventsForRetry(ctx(t), 0)
	require.NoError(t, err)
	var ids []string
	for _, ev := range retry {
		ids = append(ids, ev.ID)
		assert.Equal(t, map[string]string{"1": fmt.Sprint(clock.Now().UnixMilli())}, ev.EntityMetadata.ResilienceAttemptCount, ev.ID)
	}
	assert.ElementsMatch(t, []string{deliveries[id(4)], deliveries[id(5)], deliveries[""]}, ids)
}
