package outbox_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/opsevents"
	"github.com/streamops/streamops/internal/outbox"
	"github.com/streamops/streamops/internal/status"
	"github.com/streamops/streamops/internal/store"
)

// withOperations gives a relay the harness's operational event emitter.
func (h *harness) withOperations(c *outbox.Config) {
	c.Operations = opsevents.New(h.Emitter, h.Logger)
}

// opsHistory is the operational events of the history (of types, when
// given), oldest first, as "type" strings, and the events themselves.
func (h *harness) opsHistory(t testing.TB, types ...events.Type) ([]string, []events.Envelope) {
	t.Helper()
	names := opsTypeNames(events.OperationsTypes)
	if len(types) > 0 {
		names = opsTypeNames(types)
	}
	docs, _, err := h.Store.FindEvents(context.Background(), store.ReplayFilter{EventTypes: names}, nil, 100)
	require.NoError(t, err)
	var got []string
	var envs []events.Envelope
	for _, d := range docs {
		env, err := d.Envelope()
		require.NoError(t, err)
		got = append(got, string(env.EventType))
		envs = append(envs, env)
	}
	return got, envs
}

// opsTopic is the operational events on the operations topic (of types,
// when given), as "type" strings: what an alarm on the topic sees.
func (h *harness) opsTopic(t testing.TB, types ...events.Type) []string {
	t.Helper()
	var got []string
	for _, env := range h.Envelopes(t, events.TopicOperations) {
		assert.Equal(t, "acme", env.AggregateID(), "keyed by partnerId")
		if len(types) == 0 || slices.Contains(types, env.EventType) {
			got = append(got, string(env.EventType))
		}
	}
	return got
}

func opsTypeNames(types []events.Type) []string {
	var out []string
	for _, t := range types {
		out = append(out, string(t))
	}
	return out
}

// breakerTypes are the breaker's events.
var breakerTypes = []events.Type{events.PartnerBreakerOpened, events.PartnerBreakerClosed}

const (
	opened = string(events.PartnerBreakerOpened)
	closed = string(events.PartnerBreakerClosed)
)

// TestBreakerTransitionsAreReportedOncePerTransition runs breaker
// sequences against a scripted partner and counts the breaker events in
// the history and on the operations topic: one opened per opening (a
// failed probe is a new opening), none for failures while open, one
// closed per closing.
func TestBreakerTransitionsAreReportedOncePerTransition(t *testing.T) {
	tests := []struct {
		name string
		// script answers the deliveries in order, then 200.
		script []int
		// rounds are how many entries each run enqueues; the clock passes
		// the cooldown between runs.
		rounds []int
		// concurrency of the partner's deliveries (1: in order).
		concurrency int
		want        []string
		state       string
	}{
		{"five failures open it once", []int{503, 503, 503, 503, 503}, []int{8}, 1, []string{opened}, status.BreakerOpen},
		{"four failures open nothing", []int{503, 503, 503, 503}, []int{4}, 1, nil, status.BreakerClosed},
		{"a 4xx refusal does not count", []int{503, 503, 503, 503, 400, 503}, []int{6}, 1, nil, status.BreakerClosed},
		{"the probe succeeds: closed once", []int{503, 503, 503, 503, 503}, []int{5, 3}, 1, []string{opened, closed}, status.BreakerClosed},
		{"the probe fails: a new opening", []int{503, 503, 503, 503, 503, 503}, []int{5, 1}, 1, []string{opened, opened}, status.BreakerOpen},
		{"fails, fails again, then recovers", []int{503, 503, 503, 503, 503, 503}, []int{5, 1, 2}, 1, []string{opened, opened, closed}, status.BreakerClosed},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, tc.script...)
			r := h.relay(t, h.withOperations, func(c *outbox.Config) { c.PartnerConcurrency = tc.concurrency })
			for i, n := range tc.rounds {
				if i > 0 {
					h.clock.Advance(61 * time.Second)
				}
				h.enqueueRound(t, i, n)
				_, err := r.Run(context.Background())
				require.NoError(t, err)
			}
			got, envs := h.opsHistory(t, breakerTypes...)
			assert.Equal(t, tc.want, got, "the history")
			assert.ElementsMatch(t, tc.want, h.opsTopic(t, breakerTypes...), "the operations topic")
			eps, err := h.Store.PartnerEndpoints(context.Background(), "acme")
			require.NoError(t, err)
			if len(tc.want) > 0 || eps["acme"].State != "" {
				assert.Equal(t, tc.state, eps["acme"].State)
			}
			h.checkBreakerPayloads(t, envs)
		})
	}
}

// enqueueRound enqueues n partner entries of run round (ids apart from the
// other rounds').
func (h *harness) enqueueRound(t testing.TB, round, n int) {
	t.Helper()
	entries := make([]store.OutboxEntry, n)
	for i := range entries {
		id := store.OutboxID(events.DeriveID("", "round", string(rune('a'+round)), string(rune('a'+i))), "acme")
		entries[i] = store.OutboxEntry{OutboxID: id, AggregateType: "Order", AggregateID: id, EventType: "OR_MGMT",
			TargetProvider: "acme", Payload: store.JSONDoc(`{"orderId":1}`), NextAttemptAt: h.clock.Now()}
	}
	_, err := h.Store.EnqueueOutbox(context.Background(), entries...)
	require.NoError(t, err)
}

// checkBreakerPayloads holds the breaker events to the breaker: an opened
// one names the opening (its id derived from it), the failures and the
// last error; a closed one the opening it ends, the latest opened one.
func (h *harness) checkBreakerPayloads(t testing.TB, envs []events.Envelope) {
	t.Helper()
	var lastOpened *events.Time
	for _, env := range envs {
		switch env.EventType {
		case events.PartnerBreakerOpened:
			p, err := events.PayloadAs[events.PartnerBreakerOpenedPayload](env)
			require.NoError(t, err)
			assert.Equal(t, "acme", p.PartnerID)
			assert.Equal(t, opsevents.BreakerOpenedID("acme", p.OpenedAt.Time), env.EventID)
			assert.GreaterOrEqual(t, p.ConsecutiveFailures, 1)
			assert.Equal(t, time.Minute, p.OpenUntil.Sub(p.OpenedAt.Time))
			assert.Contains(t, p.LastError, "503")
			lastOpened = &p.OpenedAt
		case events.PartnerBreakerClosed:
			p, err := events.PayloadAs[events.PartnerBreakerClosedPayload](env)
			require.NoError(t, err)
			require.NotNil(t, lastOpened)
			require.NotNil(t, p.OpenedAt)
			assert.True(t, lastOpened.Equal(p.OpenedAt.Time), "closes the latest opening")
			assert.Equal(t, opsevents.BreakerClosedID("acme", p.OpenedAt.Time), env.EventID)
		}
		assert.Equal(t, "acme", env.Metadata.CorrelationID)
	}
}

// barrier is a partner endpoint that holds each request until n have
// arrived, then answers them all with code: n deliveries in flight at
// once, whatever the scheduling.
func barrier(t testing.TB, n, code int) *httptest.Server {
	var mu sync.Mutex
	arrived, release := 0, make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		if arrived++; arrived == n {
			close(release)
		}
		mu.Unlock()
		select {
		case <-release:
		case <-r.Context().Done():
		}
		w.WriteHeader(code)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestFailuresInFlightWhenTheBreakerOpensOpenItOnce: eight deliveries in
// flight at once all fail; the fifth opens the breaker, the other three
// are failures while open and report nothing.
func TestFailuresInFlightWhenTheBreakerOpensOpenItOnce(t *testing.T) {
	h := newHarness(t)
	srv := barrier(t, 8, http.StatusBadGateway)
	h.enqueueRound(t, 0, 8)
	r := h.relay(t, h.withOperations, func(c *outbox.Config) {
		c.PartnerConcurrency = 8
		c.Partners["acme"] = outbox.Partner{ID: "acme", Name: "Acme Corp", URL: srv.URL}
	})
	st, err := r.Run(context.Background())
	require.NoError(t, err)
	assert.Equal(t, 8, st.Retried, "all eight were in flight")
	got, _ := h.opsHistory(t)
	assert.Equal(t, []string{opened}, got)
	assert.Equal(t, []string{opened}, h.opsTopic(t))
	eps, err := h.Store.PartnerEndpoints(context.Background(), "acme")
	require.NoError(t, err)
	assert.Equal(t, 8, eps["acme"].ConsecutiveFailures)
}

// TestTwoRelaysRacingOnOneOpeningReportItOnce: the stored breaker has four
// failures; two relays each claim one entry and load it, then both
// deliveries fail at once: both relays open the breaker in memory, one
// store update changes it, and only that relay reports it. Likewise, when
// both probe the opened breaker and both succeed, one reports the close.
func TestTwoRelaysRacingOnOneOpeningReportItOnce(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	_, err := h.Store.SaveBreaker(ctx, store.PartnerEndpoint{PartnerID: "acme", State: status.BreakerClosed, ConsecutiveFailures: 4}, nil)
	require.NoError(t, err)

	race := func(code int) {
		srv := barrier(t, 2, code)
		relays := make([]*outbox.Relay, 2)
		for i := range relays {
			relays[i] = h.relay(t, h.withOperations, func(c *outbox.Config) {
				// Clocks a millisecond apart: each relay's opening has its
				// own time, so its own event id; only the store decides.
				c.Now = func() time.Time { return h.clock.Now().Add(time.Duration(i) * time.Millisecond) }
				c.BatchSize = 1
				c.Partners["acme"] = outbox.Partner{ID: "acme", Name: "Acme Corp", URL: srv.URL}
			})
		}
		var wg sync.WaitGroup
		for _, r := range relays {
			wg.Go(func() {
				_, err := r.RunBatch(ctx)
				assert.NoError(t, err)
			})
		}
		wg.Wait()
	}

	h.enqueueRound(t, 0, 2)
	race(http.StatusServiceUnavailable)
	got, _ := h.opsHistory(t)
	assert.Equal(t, []string{opened}, got, "one opening, one event")
	eps, err := h.Store.PartnerEndpoints(ctx, "acme")
	require.NoError(t, err)
	assert.Equal(t, status.BreakerOpen, eps["acme"].State)

	h.clock.Advance(61 * time.Second)
	h.enqueueRound(t, 1, 2)
	race(http.StatusOK)
	got, envs := h.opsHistory(t)
	assert.Equal(t, []string{opened, closed}, got, "one closing, one event")
	assert.Equal(t, []string{opened, closed}, h.opsTopic(t))
	h.checkBreakerPayloads(t, envs)
}

// TestADeadLetteredDeliveryIsReportedWithItsLastAnswer: the fifth failure
// dead-letters the entry and emits one delivery.dead_lettered with the
// last answer's status and error; a requeued entry that dead-letters again
// is a new event.
func TestADeadLetteredDeliveryIsReportedWithItsLastAnswer(t *testing.T) {
	h := newHarness(t)
	var mu sync.Mutex
	answers := []int{500, 500, 500, 500, 500, 410}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		code := answers[0]
		answers = answers[1:]
		mu.Unlock()
		w.WriteHeader(code)
		fmt.Fprintf(w, `{"error":"answer %d"}`, len(answers))
	}))
	t.Cleanup(srv.Close)
	ctx := context.Background()
	ids := h.enqueue(t, "acme", 1)
	r := h.relay(t, h.withOperations, func(c *outbox.Config) {
		c.Breaker.Failures = 100
		c.Partners["acme"] = outbox.Partner{ID: "acme", Name: "Acme Corp", URL: srv.URL}
	})
	for range 5 {
		_, err := r.Run(ctx)
		require.NoError(t, err)
		h.clock.Advance(time.Minute)
	}
	entry, err := h.Store.GetOutboxEntry(ctx, ids[0])
	require.NoError(t, err)
	require.Equal(t, status.OutboxDeadLetter, entry.Status)

	_, err = h.Store.RequeueOutboxEntry(ctx, ids[0], "ops")
	require.NoError(t, err)
	_, err = r.Run(ctx)
	require.NoError(t, err)

	got, envs := h.opsHistory(t)
	want := []string{string(events.DeliveryDeadLettered), string(events.DeliveryDeadLettered)}
	require.Equal(t, want, got)
	assert.Equal(t, want, h.opsTopic(t))
	for i, tc := range []struct {
		attempts, requeues, code int
		body                     string
	}{{5, 0, 500, `{"error":"answer 1"}`}, {1, 1, 410, `{"error":"answer 0"}`}} {
		p, err := events.PayloadAs[events.DeliveryDeadLetteredPayload](envs[i])
		require.NoError(t, err)
		assert.Equal(t, opsevents.DeadLetteredID(ids[0], tc.attempts, tc.requeues), envs[i].EventID)
		assert.Equal(t, ids[0], p.OutboxID)
		assert.Equal(t, "acme", p.PartnerID)
		assert.Equal(t, "OR_MGMT", p.OutboxEventType)
		assert.Equal(t, tc.attempts, p.Attempts)
		assert.Equal(t, tc.code, p.StatusCode)
		assert.Contains(t, p.Error, strconv.Itoa(tc.code), "the last answer's error")
		assert.Equal(t, tc.body, p.ResponseBody, "the last answer's body")
	}
}
