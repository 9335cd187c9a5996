package outbox_test

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/internal/outbox"
	"github.com/streamops/streamops/internal/status"
	"github.com/streamops/streamops/internal/store"
)

// pauseAfterClaim is the real store with an operator who pauses the
// partner right after each claim, before the relay sends anything: the
// claim saw the partner running, the relay's check before each send sees
// the pause.
type pauseAfterClaim struct {
	*store.Store
	t testing.TB
}

func (p pauseAfterClaim) ClaimDue(ctx context.Context, now time.Time, lease time.Duration, limit int) ([]store.OutboxEntry, error) {
	claimed, err := p.Store.ClaimDue(ctx, now, lease, limit)
	if err == nil && len(claimed) > 0 {
		_, _, err = p.PausePartner(ctx, "acme", "ops-1", "maintenance")
	}
	return claimed, err
}

// TestAPausedPartnersClaimedEntriesWaitAsTheyWere: entries claimed before
// a pause and checked after it are deferred without a request, an
// attempt, a delivery-log row or a partner attempt, in the status they
// had and due as they were, whatever their state: pending, failed with a
// retry scheduled, or failed with every attempt used (which a pause must
// not dead-letter). After the resume they go out.
func TestAPausedPartnersClaimedEntriesWaitAsTheyWere(t *testing.T) {
	for _, tc := range []struct {
		name string
		// prepare brings the entry to its state before the pause.
		prepare      func(t *testing.T, h *harness, r *outbox.Relay, id string)
		status       string
		attempts     int
		afterResume  string // the status a run after the resume leaves
		wantRequests int    // requests the partner saw before the pause
		script       []int  // the partner's answers
	}{
		{"pending", func(*testing.T, *harness, *outbox.Relay, string) {}, status.OutboxPending, 0, status.OutboxCompleted, 0, nil},
		{"failed once", func(t *testing.T, h *harness, r *outbox.Relay, _ string) {
			_, err := r.Run(context.Background()) // the partner answers 500
			require.NoError(t, err)
			h.clock.Advance(time.Minute)
		}, status.OutboxFailed, 1, status.OutboxCompleted, 1, []int{http.StatusInternalServerError}},
		{"failed with every attempt used", func(t *testing.T, h *harness, _ *outbox.Relay, _ string) {
			for range store.DefaultMaxAttempts { // five relays died holding its lease
				claimed, err := h.Store.ClaimDue(context.Background(), h.clock.Now(), time.Minute, 10)
				require.NoError(t, err)
				require.Len(t, claimed, 1)
				h.clock.Advance(2 * time.Minute)
				_, err = h.Store.ReclaimExpiredLeases(context.Background(), h.clock.Now())
				require.NoError(t, err)
			}
		}, status.OutboxFailed, store.DefaultMaxAttempts, status.OutboxDeadLetter, 0, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, tc.script...)
			id := h.enqueue(t, "acme", 1)[0]
			tc.prepare(t, h, h.relay(t), id)
			ctx := context.Background()
			before, err := h.Store.GetOutboxEntry(ctx, id)
			require.NoError(t, err)
			require.Equal(t, tc.status, before.Status)
			require.Equal(t, tc.attempts, before.Attempts)
			attemptsOf := func() map[string]string { // nil before the first delivery made the event
				ev, err := h.Store.PartnerDeliveryOf(ctx, id)
				if errors.Is(err, store.ErrNotFound) {
					return nil
				}
				require.NoError(t, err)
				return ev.EntityMetadata.ResilienceAttemptCount
			}
			attemptsBefore := attemptsOf()

			st, err := h.relay(t, func(c *outbox.Config) { c.Store = pauseAfterClaim{Store: h.Store, t: t} }).Run(ctx)
			require.NoError(t, err)
			assert.Equal(t, 1, st.Claimed)
			assert.Equal(t, 1, st.Deferred)
			assert.Len(t, h.partner.calls, tc.wantRequests, "no request while paused")
			after, err := h.Store.GetOutboxEntry(ctx, id)
			require.NoError(t, err)
			assert.Equal(t, tc.status, after.Status, "waits in the status it had")
			assert.Equal(t, tc.attempts, after.Attempts, "the claim's attempt is given back")
			assert.True(t, before.NextAttemptAt.Equal(after.NextAttemptAt), "due as it was: %s, was %s", after.NextAttemptAt, before.NextAttemptAt)
			assert.Equal(t, before.DeliveryLog, after.DeliveryLog, "no delivery-log row")
			assert.Equal(t, attemptsBefore, attemptsOf(), "no partner attempt recorded")

			h.clock.Advance(time.Hour)
			st, err = h.relay(t).Run(ctx)
			require.NoError(t, err)
			assert.Zero(t, st.Claimed, "a later run does not even claim it")

			_, changed, err := h.Store.ResumePartner(ctx, "acme", "ops-1")
			require.NoError(t, err)
			require.True(t, changed)
			_, err = h.relay(t).Run(ctx)
			require.NoError(t, err)
			resumed, err := h.Store.GetOutboxEntry(ctx, id)
			require.NoError(t, err)
			assert.Equal(t, tc.afterResume, resumed.Status)
		})
	}
}

// TestAPauseDuringABatchStopsTheSendsNotStarted: the partner is paused
// while the relay's first request of a batch is in flight; that request
// finishes, and none of the batch's other entries is sent.
func TestAPauseDuringABatchStopsTheSendsNotStarted(t *testing.T) {
	h := newHarness(t)
	ids := h.enqueue(t, "acme", 5)
	srv := h.partner.srv
	inner := srv.Config.Handler
	var pause sync.Once
	srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		pause.Do(func() {
			_, _, err := h.Store.PausePartner(r.Context(), "acme", "ops-1", "")
			assert.NoError(t, err)
		})
		inner.ServeHTTP(w, r)
	})
	st, err := h.relay(t, func(c *outbox.Config) { c.PartnerConcurrency = 1 }).Run(context.Background())
	require.NoError(t, err)
	assert.Equal(t, 1, st.Delivered, "the request in flight finishes")
	assert.Equal(t, 4, st.Deferred)
	require.Len(t, h.partner.calls, 1)
	for _, id := range ids {
		if id == h.partner.calls[0] {
			continue
		}
		e, err := h.Store.GetOutboxEntry(context.Background(), id)
		require.NoError(t, err)
		assert.Equal(t, status.OutboxPending, e.Status)
		assert.Zero(t, e.Attempts)
	}
}
