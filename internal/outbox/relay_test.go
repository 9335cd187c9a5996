package outbox_test

import (
	"context"
	"encoding/json"
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
	"github.com/streamops/streamops/internal/outbox"
	"github.com/streamops/streamops/internal/provider"
	"github.com/streamops/streamops/internal/status"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/store/storetest"
	"github.com/streamops/streamops/internal/testenv"
)

const partnerSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"

// partner is an httptest partner endpoint that answers from a script and
// verifies every delivery's Standard Webhooks signature.
type partner struct {
	t      testing.TB
	srv    *httptest.Server
	mu     sync.Mutex
	script []int // statuses to answer in order; then 200
	calls  []string
	byID   map[string]int
	// traceparents are the requests' traceparent headers, in order.
	traceparents []string
}

// seenTraceparents is a copy of the requests' traceparent headers so far.
func (p *partner) seenTraceparents() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.traceparents)
}

// hang in a partner's script answers nothing until the relay gives up.
const hang = -1

func newPartner(t testing.TB, script ...int) *partner {
	p := &partner{t: t, script: script, byID: map[string]int{}}
	verifier := &provider.Provider{Name: "acme-out", Signature: provider.Signature{Scheme: provider.SchemeStandard}}
	p.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if err := verifier.Verify(r.Header, body, []string{partnerSecret}, time.Now()); err != nil {
			http.Error(w, err.Error(), http.StatusUnauthorized)
			return
		}
		p.mu.Lock()
		p.traceparents = append(p.traceparents, r.Header.Get("traceparent"))
		status := http.StatusOK
		if len(p.script) > 0 {
			status, p.script = p.script[0], p.script[1:]
		}
		if status == hang {
			p.mu.Unlock()
			<-r.Context().Done() // the relay's delivery timeout ends it
			return
		}
		id := r.Header.Get("webhook-id")
		p.calls = append(p.calls, id)
		if status < 300 {
			p.byID[id]++
		}
		p.mu.Unlock()
		w.WriteHeader(status)
	}))
	t.Cleanup(p.srv.Close)
	return p
}

func (p *partner) delivered() map[string]int {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := map[string]int{}
	for k, v := range p.byID {
		out[k] = v
	}
	return out
}

type harness struct {
	*testenv.Env
	clock   *storetest.Clock
	partner *partner
}

func newHarness(t testing.TB, script ...int) *harness {
	clock := storetest.NewClock()
	env := testenv.New(t, testenv.Options{Store: store.Config{Now: clock.Now}})
	return &harness{Env: env, clock: clock, partner: newPartner(t, script...)}
}

func (h *harness) relay(t testing.TB, mutate ...func(*outbox.Config)) *outbox.Relay {
	cfg := outbox.Config{
		Store: h.Store, Kafka: outbox.KafkaDeliverer{Publisher: h.Bus},
		Partners: map[string]outbox.Partner{"acme": {ID: "acme", Name: "Acme Corp", URL: h.partner.srv.URL}},
		PartnerDeliverer: outbox.PartnerDeliverer{Secrets: provider.EnvSecrets{Prefix: "PARTNER_SECRET_",
			Lookup: func(string) string { return partnerSecret }}, Timeout: 2 * time.Second},
		Now: h.clock.Now, Logger: h.Logger,
	}
	for _, m := range mutate {
		m(&cfg)
	}
	r, err := outbox.New(cfg)
	require.NoError(t, err)
	return r
}

func (h *harness) enqueue(t testing.TB, target string, n int) []string {
	entries := make([]store.OutboxEntry, n)
	ids := make([]string, n)
	for i := range entries {
		src := fmt.Sprintf("evt-%d-%s", i, target)
		payload := fmt.Sprintf(`{"orderId":%d,"status":"OR_SHIPPED"}`, i)
		if target == outbox.TargetKafka {
			env, err := events.NewEvent(events.TaskCreatedPayload{TaskID: events.NewTaskID(), Type: events.TaskDataExport,
				Data: json.RawMessage(`{"format":"csv"}`), MaxRetries: 3, CreatedAt: events.Now()}, nil)
			require.NoError(t, err)
			raw, _ := json.Marshal(env)
			payload = string(raw)
		}
		ids[i] = store.OutboxID(src, target)
		entries[i] = store.OutboxEntry{OutboxID: ids[i], AggregateType: "Order", AggregateID: fmt.Sprintf("order-%d", i),
			EventType: "OR_MGMT", TargetProvider: target, Payload: store.JSONDoc(payload), NextAttemptAt: h.clock.Now()}
	}
	for i := 0; i < n; i += 250 {
		_, err := h.Store.EnqueueOutbox(context.Background(), entries[i:min(i+250, n)]...)
		require.NoError(t, err)
	}
	return ids
}

func partnerEventOf(t testing.TB, s *store.Store, outboxID string) store.PartnerEvent {
	ev, err := s.PartnerDeliveryOf(context.Background(), outboxID)
	require.NoError(t, err)
	return ev
}

func TestPartnerRetriesWithTheSeedGapsUntilDelivered(t *testing.T) {
	h := newHarness(t, 500, 500, 500, 200)
	id := h.enqueue(t, "acme", 1)[0]
	r := h.relay(t)
	ctx := context.Background()
	start := h.clock.Now()
	var at []time.Time
	for range 4 {
		entry, err := h.Store.GetOutboxEntry(ctx, id)
		require.NoError(t, err)
		if h.clock.Now().Before(entry.NextAttemptAt) {
			h.clock.Advance(entry.NextAttemptAt.Sub(h.clock.Now()))
		}
		at = append(at, h.clock.Now())
		st, err := r.Run(ctx)
		require.NoError(t, err)
		require.Equal(t, 1, st.Claimed)
	}
	entry, err := h.Store.GetOutboxEntry(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, status.OutboxCompleted, entry.Status)
	assert.Equal(t, 4, entry.Attempts)
	assert.Equal(t, []time.Duration{5 * time.Second, 15 * time.Second, 35 * time.Second},
		[]time.Duration{at[1].Sub(start), at[2].Sub(start), at[3].Sub(start)}, "gaps of 5, 10 and 20 s")

	ev := partnerEventOf(t, h.Store, id)
	assert.Equal(t, status.DirectionOut, ev.EventDirection)
	assert.Equal(t, status.PartnerSuccess, ev.EventStatus)
	assert.Equal(t, "acme", ev.EntityMetadata.PartnerID)
	want := map[string]string{}
	for i, t := range at {
		want[fmt.Sprint(i+1)] = fmt.Sprint(t.UnixMilli())
	}
	assert.Equal(t, want, ev.EntityMetadata.ResilienceAttemptCount, "every attempt recorded with its time")
	assert.Equal(t, []string{id, id, id, id}, h.partner.calls, "same webhook-id on every attempt")
}

func TestPartnerGoneDeadLettersAtOnce(t *testing.T) {
	h := newHarness(t, http.StatusGone)
	id := h.enqueue(t, "acme", 1)[0]
	st, err := h.relay(t).Run(context.Background())
	require.NoError(t, err)
	assert.Equal(t, 1, st.DeadLettered)
	entry, err := h.Store.GetOutboxEntry(context.Background(), id)
	require.NoError(t, err)
	assert.Equal(t, status.OutboxDeadLetter, entry.Status)
	assert.Equal(t, 1, entry.Attempts)
	assert.Contains(t, entry.LastError, "410")
	ev := partnerEventOf(t, h.Store, id)
	assert.Equal(t, status.PartnerDeadLetter, ev.EventStatus, "not FAILED: seed 000's retry query must not select it")
	assert.Len(t, ev.EntityMetadata.ResilienceAttemptCount, 1)
}

// TestEachAnswerIsRetriedOrDeadLetteredAsClassified: a 4xx other than 408
// and 429 is the partner refusing for good (one attempt, dead_letter);
// 408, 429, 5xx and timeouts are retried on seed 000's schedule.
func TestEachAnswerIsRetriedOrDeadLetteredAsClassified(t *testing.T) {
	for _, c := range []struct {
		answer int
		retry  bool
	}{
		{400, false}, {401, false}, {403, false}, {404, false}, {410, false}, {422, false},
		{408, true}, {429, true}, {500, true}, {502, true}, {503, true}, {hang, true},
	} {
		t.Run(fmt.Sprint(c.answer), func(t *testing.T) {
			h := newHarness(t, c.answer)
			id := h.enqueue(t, "acme", 1)[0]
			r := h.relay(t, func(cfg *outbox.Config) { cfg.PartnerDeliverer.Timeout = 100 * time.Millisecond })
			st, err := r.Run(context.Background())
			require.NoError(t, err)
			entry, err := h.Store.GetOutboxEntry(context.Background(), id)
			require.NoError(t, err)
			assert.Equal(t, 1, entry.Attempts)
			ev := partnerEventOf(t, h.Store, id)
			if c.retry {
				assert.Equal(t, 1, st.Retried)
				assert.Equal(t, status.OutboxFailed, entry.Status)
				assert.True(t, h.clock.Now().Add(5*time.Second).Equal(entry.NextAttemptAt), "retried after seed 000's first gap")
				assert.Equal(t, status.PartnerFailed, ev.EventStatus, "seed 000's retry query selects it")
				return
			}
			assert.Equal(t, 1, st.DeadLettered)
			assert.Equal(t, status.OutboxDeadLetter, entry.Status)
			assert.Equal(t, status.PartnerDeadLetter, ev.EventStatus, "seed 000's retry query leaves it")
			h.clock.Advance(time.Hour)
			st, err = r.Run(context.Background())
			require.NoError(t, err)
			assert.Zero(t, st.Claimed, "a dead letter is final")
		})
	}
}

func TestRelayKilledAfterClaimingIsReclaimedAndDeliveredOnceMore(t *testing.T) {
	h := newHarness(t)
	ids := h.enqueue(t, "acme", 3)
	// A relay claims and dies before delivering: its lease is left behind.
	claimed, err := h.Store.ClaimDue(context.Background(), h.clock.Now(), 2*time.Minute, 10)
	require.NoError(t, err)
	require.Len(t, claimed, 3)
	st, err := h.relay(t).Run(context.Background())
	require.NoError(t, err)
	assert.Zero(t, st.Claimed, "nothing is due while the lease holds")

	h.clock.Advance(3 * time.Minute)
	st, err = h.relay(t).Run(context.Background())
	require.NoError(t, err)
	assert.Equal(t, 3, st.Reclaimed)
	assert.Equal(t, 3, st.Delivered)
	delivered := h.partner.delivered()
	for _, id := range ids {
		assert.Equal(t, 1, delivered[id], "delivered once, with webhook-id = outbox id %s", id)
		e, err := h.Store.GetOutboxEntry(context.Background(), id)
		require.NoError(t, err)
		assert.Equal(t, status.OutboxCompleted, e.Status)
		assert.Equal(t, 2, e.Attempts, "the dead relay's attempt stays counted")
	}
}

func TestTwoRelaysInParallelDeliverEachEntryOnce(t *testing.T) {
	h := newHarness(t)
	ids := h.enqueue(t, "acme", 1000)
	var wg sync.WaitGroup
	stats := make([]outbox.Stats, 2)
	for i := range 2 {
		wg.Go(func() {
			var err error
			stats[i], err = h.relay(t, func(c *outbox.Config) { c.PartnerConcurrency = 8 }).Run(context.Background())
			assert.NoError(t, err)
		})
	}
	wg.Wait()
	assert.Equal(t, 1000, stats[0].Delivered+stats[1].Delivered)
	delivered := h.partner.delivered()
	assert.Len(t, delivered, 1000)
	for _, id := range ids {
		assert.Equal(t, 1, delivered[id], "entry %s delivered exactly once", id)
	}
}

func TestBreakerOpensAfterFiveFailuresAndClosesAfterCooldown(t *testing.T) {
	h := newHarness(t, 503, 503, 503, 503, 503)
	ids := h.enqueue(t, "acme", 8)
	r := h.relay(t, func(c *outbox.Config) { c.PartnerConcurrency = 1 })
	ctx := context.Background()
	st, err := r.Run(ctx)
	require.NoError(t, err)
	assert.Equal(t, 5, st.Retried, "five failures …")
	assert.Equal(t, 3, st.Deferred, "… open the breaker: the rest wait without burning attempts")
	eps, err := h.Store.PartnerEndpoints(ctx, "acme")
	require.NoError(t, err)
	ep := eps["acme"]
	assert.Equal(t, status.BreakerOpen, ep.State)
	assert.Equal(t, 5, ep.ConsecutiveFailures)
	require.NotNil(t, ep.OpenUntil)
	assert.Equal(t, h.clock.Now().Add(time.Minute), *ep.OpenUntil)
	deferred, err := h.Store.GetOutboxEntry(ctx, ids[7])
	require.NoError(t, err)
	assert.Equal(t, 0, deferred.Attempts)
	assert.Equal(t, status.OutboxPending, deferred.Status)

	h.clock.Advance(30 * time.Second)
	st, err = r.Run(ctx)
	require.NoError(t, err)
	assert.Zero(t, st.Delivered, "still open during the cooldown")

	h.clock.Advance(31 * time.Second)
	st, err = r.Run(ctx)
	require.NoError(t, err)
	assert.Equal(t, 8, st.Delivered, "after the cooldown the partner (now healthy) gets everything")
	eps, err = h.Store.PartnerEndpoints(ctx, "acme")
	require.NoError(t, err)
	assert.Equal(t, status.BreakerClosed, eps["acme"].State)
	assert.Zero(t, eps["acme"].ConsecutiveFailures)
}

func TestKafkaEntriesArePublishedInOneFlush(t *testing.T) {
	h := newHarness(t)
	h.enqueue(t, outbox.TargetKafka, 20)
	h.enqueue(t, "nowhere", 1)
	st, err := h.relay(t).Run(context.Background())
	require.NoError(t, err)
	assert.Equal(t, 20, st.Delivered)
	assert.Equal(t, 1, st.DeadLettered, "an unknown target is dead-lettered, not retried")
	assert.Len(t, h.Records(t, events.TopicTasks), 20)
}

// clearOutbox empties the outbox between benchmark iterations so each
// starts from the same collection size.
func (h *harness) clearOutbox(tb testing.TB) {
	tb.Helper()
	require.NoError(tb, h.Store.PurgeOutbox(context.Background()))
}
