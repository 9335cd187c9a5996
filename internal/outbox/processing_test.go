package outbox_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/internal/outbox"
	"github.com/streamops/streamops/internal/status"
	"github.com/streamops/streamops/internal/store"
)

// killedAfterSend is the real store of a relay that dies once its
// attempts are made: nothing it would settle is written.
type killedAfterSend struct{ *store.Store }

func (killedAfterSend) SettleOutbox(context.Context, ...store.Settlement) (int, error) {
	return 0, errors.New("relay killed before it settled")
}

// TestADeliveryInFlightIsProcessingAndACrashedOneComesBack holds a real
// partner endpoint's answer while the relay waits for it: the delivery is
// PROCESSING until its claim's lease, so seed 000's "Failed Events for
// Retry" does not select it. A relay that dies after sending leaves
// PROCESSING behind; it lapses with the outbox lease, the delivery is
// selected again and the next run delivers it.
func TestADeliveryInFlightIsProcessingAndACrashedOneComesBack(t *testing.T) {
	h := newHarness(t)
	arrived, answer := make(chan struct{}, 4), make(chan int)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.ReadAll(r.Body)
		arrived <- struct{}{}
		w.WriteHeader(<-answer)
	}))
	t.Cleanup(srv.Close)
	to := func(c *outbox.Config) {
		c.Partners = map[string]outbox.Partner{"acme": {ID: "acme", Name: "Acme Corp", URL: srv.URL}}
	}
	const lease = 2 * time.Minute // outbox.Config's default
	id := h.enqueue(t, "acme", 1)[0]
	ctx := context.Background()
	selected := func() bool {
		t.Helper()
		evs, err := h.Store.FailedPartnerEventsForRetry(ctx, 0)
		require.NoError(t, err)
		for _, ev := range evs {
			if ev.OutboxID == id {
				return true
			}
		}
		return false
	}
	run := func(r *outbox.Relay) chan error {
		done := make(chan error, 1)
		go func() { _, err := r.Run(ctx); done <- err }()
		<-arrived
		return done
	}

	done := run(h.relay(t, to))
	ev := partnerEventOf(t, h.Store, id)
	assert.Equal(t, status.PartnerProcessing, ev.EventStatus, "the attempt is in flight")
	require.NotNil(t, ev.ProcessingUntil)
	assert.Equal(t, h.clock.Now().Add(lease), *ev.ProcessingUntil, "until the claim's lease")
	assert.False(t, selected(), "a delivery being sent is not Failed Events for Retry")
	answer <- http.StatusInternalServerError
	require.NoError(t, <-done)
	ev = partnerEventOf(t, h.Store, id)
	assert.Equal(t, status.PartnerFailed, ev.EventStatus)
	assert.Nil(t, ev.ProcessingUntil)
	assert.True(t, selected(), "failed, its retry scheduled")

	// Attempt 2 reaches the partner; the relay dies before settling it.
	h.clock.Advance(5 * time.Second)
	done = run(h.relay(t, to, func(c *outbox.Config) { c.Store = killedAfterSend{h.Store} }))
	answer <- http.StatusOK
	require.Error(t, <-done)
	assert.Equal(t, status.PartnerProcessing, partnerEventOf(t, h.Store, id).EventStatus, "left behind by the dead relay")
	assert.False(t, selected())
	h.clock.Advance(lease - time.Second)
	_, err := h.Store.ReclaimExpiredLeases(ctx, h.clock.Now())
	require.NoError(t, err)
	assert.Equal(t, status.PartnerProcessing, partnerEventOf(t, h.Store, id).EventStatus, "within the lease it may still be in flight")
	h.clock.Advance(time.Second)
	n, err := h.Store.ReclaimExpiredLeases(ctx, h.clock.Now())
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	assert.Equal(t, status.PartnerFailed, partnerEventOf(t, h.Store, id).EventStatus, "the lapsed claim comes back")
	assert.True(t, selected())

	done = run(h.relay(t, to))
	answer <- http.StatusOK
	require.NoError(t, <-done)
	ev = partnerEventOf(t, h.Store, id)
	assert.Equal(t, status.PartnerSuccess, ev.EventStatus)
	assert.ElementsMatch(t, []string{"1", "3"}, keys(ev.EntityMetadata.ResilienceAttemptCount),
		"the dead relay's attempt 2 stays counted by the outbox; its record died with it")
	assert.False(t, selected())
}

func keys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
