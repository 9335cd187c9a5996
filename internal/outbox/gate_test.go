package outbox_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/deadline"
	"github.com/streamops/streamops/internal/opsevents"
	"github.com/streamops/streamops/internal/outbox"
	"github.com/streamops/streamops/internal/provider"
	"github.com/streamops/streamops/internal/status"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/testenv"
)

// The partner gate end to end: real relays serving (as a scheduled run
// does) on the real clock, a real store, and a real HTTP endpoint that
// times what arrives. No bound below depends on a schedule's period or
// the relay's poll: each comes from the partner's own rule.

// gatePartner is a partner endpoint that verifies each delivery's
// signature, answers with answer(n) (n counts requests from 0) after
// delay, and records when each request arrived and how many were in
// flight at most.
type gatePartner struct {
	srv      *httptest.Server
	mu       sync.Mutex
	at       []time.Time
	byID     map[string]int
	inFlight int
	maxIn    int
}

func newGatePartner(t *testing.T, delay time.Duration, answer func(n int, w http.ResponseWriter) int) *gatePartner {
	p := &gatePartner{byID: map[string]int{}}
	verifier := &provider.Provider{Name: "acme-out", Signature: provider.Signature{Scheme: provider.SchemeStandard}}
	p.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if err := verifier.Verify(r.Header, body, []string{partnerSecret}, time.Now()); err != nil {
			http.Error(w, err.Error(), http.StatusUnauthorized)
			return
		}
		p.mu.Lock()
		n := len(p.at)
		p.at = append(p.at, testenv.WallNow())
		p.inFlight++
		p.maxIn = max(p.maxIn, p.inFlight)
		p.mu.Unlock()
		time.Sleep(delay)
		code := answer(n, w)
		p.mu.Lock()
		p.inFlight--
		if code < 300 {
			p.byID[r.Header.Get("webhook-id")]++
		}
		p.mu.Unlock()
		w.WriteHeader(code)
	}))
	t.Cleanup(p.srv.Close)
	return p
}

// arrivals is when each request arrived, delivered the deliveries
// accepted by webhook-id, maxInFlight the most requests in flight at once.
func (p *gatePartner) arrivals() []time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]time.Time(nil), p.at...)
}

func (p *gatePartner) delivered() map[string]int {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make(map[string]int, len(p.byID))
	for k, v := range p.byID {
		out[k] = v
	}
	return out
}

func (p *gatePartner) maxInFlight() int { p.mu.Lock(); defer p.mu.Unlock(); return p.maxIn }

// gateEnv is a store on the real clock and the partner "acme" at p.
type gateEnv struct {
	*testenv.Env
	partner outbox.Partner
}

func newGateEnv(t *testing.T, p *gatePartner, mutate func(*outbox.Partner)) *gateEnv {
	env := testenv.New(t, testenv.Options{})
	partner := outbox.Partner{ID: "acme", Name: "Acme Corp", URL: p.srv.URL}
	if mutate != nil {
		mutate(&partner)
	}
	return &gateEnv{Env: env, partner: partner}
}

// serve starts a relay serving (a scheduled run with a long period) and
// returns a stop that winds it down and returns its stats.
func (g *gateEnv) serve(t *testing.T, mutate func(*outbox.Config)) func() outbox.Stats {
	cfg := outbox.Config{
		Store: g.Store, Kafka: outbox.KafkaDeliverer{Publisher: g.Bus},
		Partners: map[string]outbox.Partner{"acme": g.partner},
		PartnerDeliverer: outbox.PartnerDeliverer{Secrets: provider.EnvSecrets{Prefix: "PARTNER_SECRET_",
			Lookup: func(string) string { return partnerSecret }}, Timeout: 5 * time.Second},
		Period: 5 * time.Minute, Logger: g.Logger, Operations: opsevents.New(g.Emitter, g.Logger),
	}
	if mutate != nil {
		mutate(&cfg)
	}
	relay, err := outbox.New(cfg)
	require.NoError(t, err)
	stop := make(chan struct{})
	done := make(chan outbox.Stats, 1)
	go func() {
		st, err := relay.Serve(deadline.WithWindDown(context.Background(), stop), time.Time{})
		assert.NoError(t, err)
		done <- st
	}()
	var once sync.Once
	var st outbox.Stats
	halt := func() outbox.Stats {
		once.Do(func() { close(stop); st = <-done })
		return st
	}
	t.Cleanup(func() { halt() })
	return halt
}

// enqueue queues n deliveries to acme and returns their outbox ids.
func (g *gateEnv) enqueue(t *testing.T, n int) []string {
	ids := make([]string, n)
	entries := make([]store.OutboxEntry, n)
	for i := range n {
		src := fmt.Sprintf("evt-gate-%s-%d", t.Name(), i)
		ids[i] = store.OutboxID(src, "acme")
		entries[i] = store.OutboxEntry{OutboxID: ids[i], AggregateType: "Order", AggregateID: fmt.Sprintf("order-%d", i),
			EventType: "OR_MGMT", TargetProvider: "acme", Payload: store.JSONDoc(fmt.Sprintf(`{"orderId":%d}`, i))}
	}
	_, err := g.Store.EnqueueOutbox(context.Background(), entries...)
	require.NoError(t, err)
	return ids
}

// TestRetryAfterHoldsThePartnerWithoutUsingAnAttempt: a partner answering
// 429 with "Retry-After: 7" gets the delivery again 7 s later (±1 s), and
// it is delivered having used one attempt: one attempt in the entry and
// in seed 000's resilienceAttemptCount, a throttled row then a completed
// one in its delivery log; the breaker never counted the 429; the hold
// was announced once as partner.throttled, in the history and on the
// operations topic.
func TestRetryAfterHoldsThePartnerWithoutUsingAnAttempt(t *testing.T) {
	t.Parallel()
	p := newGatePartner(t, 0, func(n int, w http.ResponseWriter) int {
		if n == 0 {
			w.Header().Set("Retry-After", "7")
			return http.StatusTooManyRequests
		}
		return http.StatusOK
	})
	g := newGateEnv(t, p, nil)
	id := g.enqueue(t, 1)[0]
	stop := g.serve(t, nil)
	ctx := context.Background()

	testenv.Eventually(t, 15*time.Second, func() bool { return len(p.arrivals()) >= 2 }, "the throttled delivery is sent again")
	at := p.arrivals()
	gap := at[1].Sub(at[0])
	t.Logf("Retry-After 7: the second request came %.3fs after the first", gap.Seconds())
	assert.InDelta(t, 7, gap.Seconds(), 1, "the second request waits for the partner's Retry-After")

	var e store.OutboxEntry
	testenv.Eventually(t, 5*time.Second, func() bool {
		var err error
		e, err = g.Store.GetOutboxEntry(ctx, id)
		return err == nil && e.Status == status.OutboxCompleted
	}, "delivered")
	st := stop()
	assert.Equal(t, 1, st.Throttled)
	assert.Equal(t, 1, st.Delivered)
	assert.Len(t, p.arrivals(), 2, "nothing else was sent")
	assert.Equal(t, 1, e.Attempts, "the throttle used no attempt")
	assert.Nil(t, e.ThrottledSince, "delivering ends the throttling")
	require.Len(t, e.DeliveryLog, 2)
	assert.Equal(t, status.OutcomeThrottledLog, e.DeliveryLog[0].Outcome)
	assert.Equal(t, 429, e.DeliveryLog[0].StatusCode)
	assert.Equal(t, status.OutboxCompleted, e.DeliveryLog[1].Outcome)
	assert.Equal(t, 200, e.DeliveryLog[1].StatusCode)

	ev, err := g.Store.PartnerDeliveryOf(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, status.PartnerSuccess, ev.EventStatus)
	assert.Len(t, ev.EntityMetadata.ResilienceAttemptCount, 1, "seed 000 sees one attempt: %v", ev.EntityMetadata.ResilienceAttemptCount)
	assert.Contains(t, ev.EntityMetadata.ResilienceAttemptCount, "1")

	eps, err := g.Store.PartnerEndpoints(ctx, "acme")
	require.NoError(t, err)
	ep := eps["acme"]
	assert.Equal(t, status.BreakerClosed, ep.State)
	assert.Zero(t, ep.ConsecutiveFailures, "the breaker does not count a throttle")
	require.NotNil(t, ep.HoldUntil)
	assert.Equal(t, 429, ep.HoldStatusCode)
	assert.Equal(t, "7", ep.HoldRetryAfter)
	assert.WithinDuration(t, at[0].Add(7*time.Second), *ep.HoldUntil, time.Second)

	h := &harness{Env: g.Env}
	got, envs := h.opsHistory(t, events.PartnerThrottled)
	require.Equal(t, []string{string(events.PartnerThrottled)}, got, "one event per hold")
	pl, err := events.PayloadAs[events.PartnerThrottledPayload](envs[0])
	require.NoError(t, err)
	assert.Equal(t, events.PartnerThrottledPayload{PartnerID: "acme", OutboxID: id, StatusCode: 429, RetryAfter: "7",
		HoldUntil: events.At(*ep.HoldUntil)}, pl)
	assert.Equal(t, []string{string(events.PartnerThrottled)}, h.opsTopic(t, events.PartnerThrottled))
}

// TestARateLimitSpacesDeliveriesAcrossTheBatch: rateLimit 2 → the i-th of
// 20 queued deliveries arrives at least i × 0.5 s after the relay started,
// and each arrives once. The bound is from the start, not between two
// arrivals: the relay sends each at its slot or later, so a send held up
// on a loaded machine may arrive next to the one after it, but no send
// goes before its slot.
func TestARateLimitSpacesDeliveriesAcrossTheBatch(t *testing.T) {
	t.Parallel()
	p := newGatePartner(t, 0, func(int, http.ResponseWriter) int { return http.StatusOK })
	g := newGateEnv(t, p, func(p *outbox.Partner) { rate := 2.0; p.RateLimit = &rate })
	ids := g.enqueue(t, 20)
	start := time.Now()
	stop := g.serve(t, nil)

	testenv.Eventually(t, 30*time.Second, func() bool { return len(p.delivered()) == 20 }, "all 20 delivered")
	st := stop()
	at := p.arrivals()
	slices.SortFunc(at, time.Time.Compare)
	t.Logf("rateLimit 2: 20 deliveries from first to last in %.3fs, the last %.3fs after the start (deferred %d)",
		at[len(at)-1].Sub(at[0]).Seconds(), at[len(at)-1].Sub(start).Seconds(), st.Deferred)
	for i, a := range at {
		slot := time.Duration(i) * 500 * time.Millisecond
		assert.GreaterOrEqual(t, a.Sub(start), slot, "request %d came before its slot: 2 a second allows %d requests in %s", i, i, slot)
	}
	assert.Len(t, at, 20, "no request twice")
	for _, id := range ids {
		assert.Equal(t, 1, p.delivered()[id], "%s delivered once", id)
	}
}

// TestMaxInFlightHoldsAcrossTwoRelays: two relays serving at once, each
// able to send many deliveries at a time, never have more than the
// partner's maxInFlight (2) requests in flight at its slow endpoint, and
// deliver everything once.
func TestMaxInFlightHoldsAcrossTwoRelays(t *testing.T) {
	t.Parallel()
	p := newGatePartner(t, 400*time.Millisecond, func(int, http.ResponseWriter) int { return http.StatusOK })
	g := newGateEnv(t, p, func(p *outbox.Partner) { two := 2; p.MaxInFlight = &two })
	ids := g.enqueue(t, 12)
	small := func(c *outbox.Config) { c.BatchSize, c.Batches, c.PartnerConcurrency = 2, 4, 4 }
	stopA, stopB := g.serve(t, small), g.serve(t, small)

	testenv.Eventually(t, 30*time.Second, func() bool { return len(p.delivered()) == 12 }, "all 12 delivered")
	a, b := stopA(), stopB()
	t.Logf("maxInFlight 2: at most %d in flight; relay A claimed %d, B %d", p.maxInFlight(), a.Claimed, b.Claimed)
	assert.LessOrEqual(t, p.maxInFlight(), 2, "never more than maxInFlight at the endpoint")
	assert.Equal(t, 2, p.maxInFlight(), "and the limit is used")
	assert.Positive(t, a.Claimed)
	assert.Positive(t, b.Claimed)
	assert.Len(t, p.arrivals(), 12, "no request twice")
	for _, id := range ids {
		assert.Equal(t, 1, p.delivered()[id], "%s delivered once", id)
	}
	eps, err := g.Store.PartnerEndpoints(context.Background(), "acme")
	require.NoError(t, err)
	assert.Empty(t, eps["acme"].InFlight, "every lease released")
}
