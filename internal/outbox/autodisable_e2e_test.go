package outbox_test

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/outbox"
	"github.com/streamops/streamops/internal/status"
	"github.com/streamops/streamops/internal/store"
)

// registry is a small partner registry, as the relay sees one managed at
// run time: its directory shows a partner disabled once DisablePartner
// disabled it, until enable.
type registry struct {
	mu       sync.Mutex
	partners map[string]outbox.Partner
}

func (g *registry) Partners(context.Context) (map[string]outbox.Partner, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return maps.Clone(g.partners), nil
}

func (g *registry) DisablePartner(_ context.Context, id, reason string, _ time.Time) (bool, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	p, ok := g.partners[id]
	if !ok || p.Disabled {
		return false, nil
	}
	p.Disabled, p.DisabledReason = true, reason
	g.partners[id] = p
	return true, nil
}

func (g *registry) enable(id string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	p := g.partners[id]
	p.Disabled, p.DisabledReason = false, ""
	g.partners[id] = p
}

func (g *registry) get(id string) outbox.Partner {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.partners[id]
}

// TestAPartnerFailingForTheDisablePeriodIsDisabledAndDrainsAfterEnable: a
// real endpoint that always answers 500 gets a new delivery every minute
// of the test clock, the relay running every 30 s with a 10-minute
// disable period. It is warned about once at 50 % and once at 90 % (the
// warnings stored in its endpoint state, so a relay started again
// repeats neither), then disabled with partner.disabled: nothing more is
// sent, and the entries still waiting stay waiting, none dead-lettered
// by the disable (the early ones used their five attempts as seed 000
// says). Enabled, with the endpoint answering again, its backlog drains.
func TestAPartnerFailingForTheDisablePeriodIsDisabledAndDrainsAfterEnable(t *testing.T) {
	const period = 10 * time.Minute
	ctx := context.Background()
	h := newHarness(t)
	var requests atomic.Int64
	var healthy atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		requests.Add(1)
		if healthy.Load() {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		http.Error(w, "down", http.StatusInternalServerError)
	}))
	t.Cleanup(srv.Close)
	reg := &registry{partners: map[string]outbox.Partner{"acme": {ID: "acme", Name: "Acme Corp", URL: srv.URL}}}
	// Each run has a relay of its own, as each scheduled invocation may.
	run := func() outbox.Stats {
		r := h.relay(t, h.withOperations, func(c *outbox.Config) {
			c.Partners, c.Directory, c.Disabler, c.DisableAfter = nil, reg, reg, period
		})
		st, err := r.Run(ctx)
		require.NoError(t, err)
		return st
	}
	var ids []string
	enqueue := func(n int) {
		id := store.OutboxID(fmt.Sprintf("evt-%d", n), "acme")
		_, err := h.Store.EnqueueOutbox(ctx, store.OutboxEntry{OutboxID: id, AggregateType: "Order", AggregateID: fmt.Sprintf("order-%d", n),
			EventType: "OR_MGMT", TargetProvider: "acme", Payload: store.JSONDoc(`{"status":"OR_SHIPPED"}`), NextAttemptAt: h.clock.Now()})
		require.NoError(t, err)
		ids = append(ids, id)
	}
	failingTypes := []events.Type{events.PartnerFailing, events.PartnerDisabled}
	start := h.clock.Now()
	var warnedAt50 int
	for step := 0; !reg.get("acme").Disabled; step++ {
		require.Less(t, step, 2*12, "disabled within 12 minutes of failures")
		if step%2 == 0 {
			enqueue(step / 2)
		}
		run()
		eps, err := h.Store.PartnerEndpoints(ctx, "acme")
		require.NoError(t, err)
		ep := eps["acme"]
		if got, _ := h.opsHistory(t, failingTypes...); len(got) == 1 && warnedAt50 == 0 {
			warnedAt50 = step
			assert.Equal(t, 50, ep.FailingWarned, "the warning is kept with the endpoint")
		}
		if !reg.get("acme").Disabled {
			require.NotNil(t, ep.FailingSince)
			assert.True(t, start.Truncate(time.Millisecond).Equal(*ep.FailingSince), "failing since the first attempt")
		}
		h.clock.Advance(30 * time.Second)
	}
	got, envs := h.opsHistory(t, failingTypes...)
	require.Equal(t, []string{"partner.failing", "partner.failing", "partner.disabled"}, got, "each warning once, then the disable")
	w50, err := events.PayloadAs[events.PartnerFailingPayload](envs[0])
	require.NoError(t, err)
	w90, err := events.PayloadAs[events.PartnerFailingPayload](envs[1])
	require.NoError(t, err)
	dis, err := events.PayloadAs[events.PartnerDisabledPayload](envs[2])
	require.NoError(t, err)
	assert.Equal(t, []int{50, 90}, []int{w50.Percent, w90.Percent})
	assert.GreaterOrEqual(t, w50.At.Sub(start), period/2)
	assert.Less(t, w50.At.Sub(start), period*9/10)
	assert.GreaterOrEqual(t, w90.At.Sub(start), period*9/10)
	assert.GreaterOrEqual(t, dis.DisabledAt.Sub(start), period)
	assert.True(t, start.Truncate(time.Millisecond).Equal(dis.FailingSince.Time))
	assert.Equal(t, period.Milliseconds(), dis.DisableAfterMs)
	assert.Contains(t, dis.LastError, "500")
	assert.Equal(t, dis.Reason, reg.get("acme").DisabledReason, "the registry keeps why")

	counts := func() map[string]int {
		out := map[string]int{}
		for _, id := range ids {
			e, err := h.Store.GetOutboxEntry(ctx, id)
			require.NoError(t, err)
			out[e.Status]++
		}
		return out
	}
	atDisable := counts()
	require.NotZero(t, atDisable[status.OutboxDeadLetter], "the first entries used their five attempts")
	waiting := len(ids) - atDisable[status.OutboxDeadLetter]
	require.NotZero(t, waiting, "entries still waiting when it was disabled")
	sent := requests.Load()
	for range 10 { // five more minutes, disabled
		h.clock.Advance(30 * time.Second)
		run()
	}
	assert.Equal(t, sent, requests.Load(), "nothing is sent to a disabled partner")
	assert.Equal(t, atDisable, counts(), "its entries wait as they were: none dead-lettered by the disable")
	got, _ = h.opsHistory(t, failingTypes...)
	assert.Len(t, got, 3, "no warning and no disable again")

	reg.enable("acme")
	healthy.Store(true)
	for range 6 {
		h.clock.Advance(time.Minute)
		run()
	}
	after := counts()
	assert.Equal(t, waiting, after[status.OutboxCompleted], "the backlog drains after the enable")
	assert.Equal(t, atDisable[status.OutboxDeadLetter], after[status.OutboxDeadLetter])
	eps, err := h.Store.PartnerEndpoints(ctx, "acme")
	require.NoError(t, err)
	assert.Nil(t, eps["acme"].FailingSince, "the success ends the run")
	assert.Zero(t, eps["acme"].FailingWarned)
}
