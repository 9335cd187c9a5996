package storetest

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/internal/status"
	"github.com/streamops/streamops/internal/store"
)

// testClaimIsSeed004sPollingQuery runs seed 004's polling query on the
// engine: "WHERE status IN ('pending', 'failed') AND next_attempt_at <=
// NOW() ORDER BY next_attempt_at LIMIT $batch_size". Entries of every
// status, due and not, are stored in a scrambled order; each claim must
// take exactly the oldest due pending or failed entries, in order, and no
// more than its limit.
func testClaimIsSeed004sPollingQuery(t *testing.T, open Opener) {
	clock := NewClock()
	s := open(t, store.Config{Now: clock.Now})
	now := clock.Now()
	at := func(name string, d time.Duration) store.OutboxEntry {
		e := outboxEntries(1, now.Add(d), 0)[0]
		e.OutboxID = "outbox-" + name
		return e
	}
	// Entries that leave pending first: all due long ago, so the status
	// alone must keep the settled and the leased ones out.
	settled := []store.OutboxEntry{at("failed-due", -20*time.Second), at("failed-later", -20*time.Second),
		at("completed", -20*time.Second), at("dead-letter", -20*time.Second), at("processing", -20*time.Second)}
	enqueue(t, s, settled)
	byID := claimAll(t, s, now, len(settled))
	require.NoError(t, s.MarkFailed(ctx(t), byID["outbox-failed-due"], now.Add(-7*time.Second), "503"))
	require.NoError(t, s.MarkFailed(ctx(t), byID["outbox-failed-later"], now.Add(2*time.Second), "503"))
	require.NoError(t, s.MarkCompleted(ctx(t), byID["outbox-completed"]))
	require.NoError(t, s.DeadLetter(ctx(t), byID["outbox-dead-letter"], "410"))
	// outbox-processing stays leased.
	for id, want := range map[string]string{"outbox-failed-due": status.OutboxFailed, "outbox-failed-later": status.OutboxFailed,
		"outbox-completed": status.OutboxCompleted, "outbox-dead-letter": status.OutboxDeadLetter, "outbox-processing": status.OutboxProcessing} {
		got, err := s.GetOutboxEntry(ctx(t), id)
		require.NoError(t, err)
		require.Equal(t, want, got.Status, id)
	}
	// Pending entries, stored neither in due order nor in id order.
	enqueue(t, s, []store.OutboxEntry{at("a-minus5", -5*time.Second), at("b-plus4", 4*time.Second), at("c-minus9", -9*time.Second),
		at("d-minus3", -3*time.Second), at("e-minus1", -time.Second), at("f-now", 0)})

	claim := func(limit int) []string {
		got, err := s.ClaimDue(ctx(t), now, time.Minute, limit)
		require.NoError(t, err)
		ids := make([]string, len(got))
		for i, e := range got {
			ids[i] = e.OutboxID
		}
		return ids
	}
	assert.Equal(t, []string{"outbox-c-minus9", "outbox-failed-due", "outbox-a-minus5"}, claim(3),
		"LIMIT 3 of the due pending and failed entries, ORDER BY next_attempt_at")
	assert.Equal(t, []string{"outbox-d-minus3", "outbox-e-minus1", "outbox-f-now"}, claim(10),
		"the rest that are due (next_attempt_at <= NOW() included); not the later ones, not completed, dead_letter or processing")
	assert.Empty(t, claim(10), "nothing else is due")
	clock.Advance(4 * time.Second)
	now = clock.Now()
	assert.Equal(t, []string{"outbox-failed-later", "outbox-b-plus4"}, claim(10), "due now, oldest first")
}
