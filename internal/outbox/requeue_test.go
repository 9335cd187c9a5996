package outbox_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/internal/outbox"
	"github.com/streamops/streamops/internal/status"
)

// TestARequeuedDeadLetterIsSentAgainAsANewRound: a dead letter stays one
// through any number of relay runs; an operator's requeue starts a new
// round, which the relay sends at once (attempt 1, resilienceAttemptCount
// {"1"} alone) even when the earlier round spent all five attempts, and
// retries on seed 000's schedule like any delivery.
func TestARequeuedDeadLetterIsSentAgainAsANewRound(t *testing.T) {
	for _, c := range []struct {
		name     string
		script   []int // the partner's answers before the requeue
		attempts int   // the first round's
		status   string
	}{
		{"refused at the first attempt", []int{http.StatusGone}, 1, status.PartnerDeadLetter},
		{"five attempts spent", []int{500, 500, 500, 500, 500}, 5, status.PartnerFailed},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, append(c.script, 503)...) // the new round's first attempt fails once more, then 200
			id := h.enqueue(t, "acme", 1)[0]
			// The breaker stays closed: the rounds' gaps are the subject here.
			r := h.relay(t, func(cfg *outbox.Config) { cfg.Breaker.Failures = 10 })
			ctx := context.Background()
			for range c.attempts {
				_, err := r.Run(ctx)
				require.NoError(t, err)
				h.clock.Advance(time.Minute)
			}
			entry, err := h.Store.GetOutboxEntry(ctx, id)
			require.NoError(t, err)
			require.Equal(t, status.OutboxDeadLetter, entry.Status)
			require.Equal(t, c.attempts, entry.Attempts)
			for range 3 {
				h.clock.Advance(time.Hour)
				st, err := r.Run(ctx)
				require.NoError(t, err)
				require.Zero(t, st.Claimed, "a dead letter is final")
			}
			require.Len(t, h.partner.calls, c.attempts)
			require.Equal(t, c.status, partnerEventOf(t, h.Store, id).EventStatus)

			_, err = h.Store.RequeueOutboxEntry(ctx, id, "alice")
			require.NoError(t, err)
			ev := partnerEventOf(t, h.Store, id)
			assert.Equal(t, status.PartnerPending, ev.EventStatus, "back to a state the relay updates")
			assert.Empty(t, ev.EntityMetadata.ResilienceAttemptCount)

			first := h.clock.Now()
			st, err := r.Run(ctx)
			require.NoError(t, err)
			require.Equal(t, 1, st.Retried, "sent at once, not dead-lettered unsent: %+v", st)
			h.clock.Advance(5 * time.Second) // seed 000's first gap
			second := h.clock.Now()
			st, err = r.Run(ctx)
			require.NoError(t, err)
			require.Equal(t, 1, st.Delivered)

			entry, err = h.Store.GetOutboxEntry(ctx, id)
			require.NoError(t, err)
			assert.Equal(t, status.OutboxCompleted, entry.Status)
			assert.Equal(t, 2, entry.Attempts, "the new round's")
			assert.Equal(t, "alice", entry.RequeuedBy)
			assert.Equal(t, 1, entry.Requeues)
			ev = partnerEventOf(t, h.Store, id)
			assert.Equal(t, status.PartnerSuccess, ev.EventStatus)
			assert.Equal(t, map[string]string{"1": fmt.Sprint(first.UnixMilli()), "2": fmt.Sprint(second.UnixMilli())},
				ev.EntityMetadata.ResilienceAttemptCount, "the new round's attempts alone")
			assert.Len(t, h.partner.calls, c.attempts+2)
			assert.Equal(t, map[string]int{id: 1}, h.partner.delivered(), "received once")
		})
	}
}
