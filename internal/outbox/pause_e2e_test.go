package outbox_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/httpapi"
	"github.com/streamops/streamops/internal/opsevents"
	"github.com/streamops/streamops/internal/outbox"
	"github.com/streamops/streamops/internal/provider"
	"github.com/streamops/streamops/internal/status"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/testenv"
)

// arrival is one request a recording partner received.
type arrival struct {
	id string
	at time.Time
}

// recorder is a local partner endpoint that verifies each request's
// signature and records when it arrived; gate, when set, holds a request
// until it is closed.
type recorder struct {
	srv  *httptest.Server
	mu   sync.Mutex
	seen []arrival
	gate chan struct{}
	// arrived is signalled (without blocking) on each request.
	arrived chan struct{}
}

func newRecorder(t *testing.T, gate chan struct{}) *recorder {
	rec := &recorder{gate: gate, arrived: make(chan struct{}, 100)}
	verifier := &provider.Provider{Name: "acme-out", Signature: provider.Signature{Scheme: provider.SchemeStandard}}
	rec.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		at := testenv.WallNow()
		body, _ := io.ReadAll(r.Body)
		if err := verifier.Verify(r.Header, body, []string{partnerSecret}, time.Now()); err != nil {
			http.Error(w, err.Error(), http.StatusUnauthorized)
			return
		}
		rec.mu.Lock()
		rec.seen = append(rec.seen, arrival{r.Header.Get("webhook-id"), at})
		rec.mu.Unlock()
		select {
		case rec.arrived <- struct{}{}:
		default:
		}
		if rec.gate != nil {
			<-rec.gate
		}
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(rec.srv.Close)
	return rec
}

func (rec *recorder) arrivals() []arrival {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return append([]arrival(nil), rec.seen...)
}

// pauseStack is the real relay, API and store around a recording partner
// "acme", on the engine the tests run on, with the real clock.
type pauseStack struct {
	*testenv.Env
	rec *recorder
	api testenv.API
}

func newPauseStack(t *testing.T, gate chan struct{}) *pauseStack {
	env := testenv.New(t, testenv.Options{})
	rec := newRecorder(t, gate)
	srv := httptest.NewServer(httpapi.API(httpapi.APIConfig{Store: env.Store, Logger: env.Logger,
		Partners:   map[string]httpapi.PartnerConfig{"acme": {ID: "acme", Name: "Acme Corp", URL: rec.srv.URL}},
		Operations: opsevents.New(env.Emitter, env.Logger), Auth: httpapi.TokenAuth{AdminToken: "ops-token"}}))
	t.Cleanup(srv.Close)
	return &pauseStack{Env: env, rec: rec, api: testenv.API{URL: srv.URL, Token: "ops-token"}}
}

// relay is a new serving relay instance (its own process, as far as the
// store can tell) whose window is period: one batch at a time, one
// request at a time, so deliveries go out in claim order.
func (s *pauseStack) relay(t *testing.T, period time.Duration) *outbox.Relay {
	r, err := outbox.New(outbox.Config{Store: s.Store, Kafka: outbox.KafkaDeliverer{Publisher: s.Bus},
		Partners: map[string]outbox.Partner{"acme": {ID: "acme", Name: "Acme Corp", URL: s.rec.srv.URL}},
		PartnerDeliverer: outbox.PartnerDeliverer{Secrets: provider.EnvSecrets{Prefix: "PARTNER_SECRET_",
			Lookup: func(string) string { return partnerSecret }}, Timeout: 5 * time.Second},
		Period: period, BatchSize: 5, Batches: 1, PartnerConcurrency: 1, Logger: s.Logger})
	require.NoError(t, err)
	return r
}

// serve runs r in the background until its window ends or stop is
// called, which waits for it.
func serve(t *testing.T, r *outbox.Relay) (stop func() outbox.Stats) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan outbox.Stats, 1)
	go func() {
		st, err := r.Serve(ctx, time.Time{})
		if ctx.Err() == nil {
			assert.NoError(t, err)
		}
		done <- st
	}()
	var once sync.Once
	var st outbox.Stats
	stop = func() outbox.Stats { once.Do(func() { cancel(); st = <-done }); return st }
	t.Cleanup(func() { stop() })
	return stop
}

// enqueue stores n deliveries to acme one after the other and returns
// their ids in enqueue order.
func (s *pauseStack) enqueue(t *testing.T, n int) []string {
	ids := make([]string, n)
	base := time.Now().Truncate(time.Millisecond)
	for i := range ids {
		ids[i] = store.OutboxID(fmt.Sprintf("evt-pause-%d", i), "acme")
		_, err := s.Store.EnqueueOutbox(context.Background(), store.OutboxEntry{OutboxID: ids[i], TargetProvider: "acme",
			AggregateType: "Order", AggregateID: fmt.Sprintf("order-%d", i), EventType: "OR_MGMT",
			Payload: store.JSONDoc(fmt.Sprintf(`{"orderId":%d}`, i)), NextAttemptAt: base.Add(time.Duration(i) * time.Millisecond)})
		require.NoError(t, err)
	}
	return ids
}

// pauseOrResume calls the API and returns when it answered.
func (s *pauseStack) pauseOrResume(t *testing.T, action string, wantPaused bool) time.Time {
	var view struct {
		Paused bool `json:"paused"`
	}
	require.Equal(t, http.StatusOK, s.api.Call(t, http.MethodPost, "/api/partners/acme/"+action, nil, nil, &view))
	require.Equal(t, wantPaused, view.Paused)
	return time.Now()
}

// requireWaiting checks every entry is as a pause must leave it.
func (s *pauseStack) requireWaiting(t *testing.T, ids []string) {
	for _, id := range ids {
		e, err := s.Store.GetOutboxEntry(context.Background(), id)
		require.NoError(t, err)
		assert.Equal(t, status.OutboxPending, e.Status, id)
		assert.Zero(t, e.Attempts, id)
		assert.Empty(t, e.DeliveryLog, id)
	}
}

// TestPausedPartnerGetsNothingFor30sThenEverythingOnceInOrder is issue
// 27's pause check end to end: deliveries enqueued and the partner paused
// through the API, relays serving for 30 s (one of them replaced by a new
// instance halfway, as a restart would) send nothing and leave every entry
// pending with no attempt used; after the resume every delivery arrives
// exactly once, in enqueue order.
func TestPausedPartnerGetsNothingFor30sThenEverythingOnceInOrder(t *testing.T) {
	s := newPauseStack(t, nil)
	const n = 20
	ids := s.enqueue(t, n)
	s.pauseOrResume(t, "pause", true)

	var served time.Duration
	for range 2 { // a relay, then a new instance, as a restart makes
		start := time.Now()
		stop := serve(t, s.relay(t, 15500*time.Millisecond)) // a window of 15 s each
		for time.Since(start) < 15*time.Second && len(s.rec.arrivals()) == 0 {
			time.Sleep(100 * time.Millisecond)
		}
		st := stop()
		served += time.Since(start)
		assert.Zero(t, st.Claimed, "a paused partner's entries are not claimed")
	}
	require.GreaterOrEqual(t, served, 30*time.Second)
	assert.Empty(t, s.rec.arrivals(), "nothing arrives while paused")
	s.requireWaiting(t, ids)
	var ep struct {
		Paused  bool `json:"paused"`
		Backlog struct {
			Count            int     `json:"count"`
			OldestAgeSeconds float64 `json:"oldestAgeSeconds"`
		} `json:"backlog"`
	}
	require.Equal(t, http.StatusOK, s.api.Call(t, http.MethodGet, "/api/partners/acme/endpoint", nil, nil, &ep))
	assert.True(t, ep.Paused)
	assert.Equal(t, n, ep.Backlog.Count)
	assert.GreaterOrEqual(t, ep.Backlog.OldestAgeSeconds, 30.0, "the backlog's age shows the pause")

	stop := serve(t, s.relay(t, time.Minute))
	resumed := s.pauseOrResume(t, "resume", false)
	testenv.Eventually(t, 20*time.Second, func() bool { return len(s.rec.arrivals()) >= n },
		"every delivery arrives after the resume: %d of %d", len(s.rec.arrivals()), n)
	drained := time.Since(resumed)
	time.Sleep(500 * time.Millisecond) // room for a duplicate to show
	stop()
	got := s.rec.arrivals()
	order := make([]string, len(got))
	for i, a := range got {
		order[i] = a.id
	}
	assert.Equal(t, ids, order, "each delivery once, in enqueue order")
	for _, id := range ids {
		e, err := s.Store.GetOutboxEntry(context.Background(), id)
		require.NoError(t, err)
		assert.Equal(t, status.OutboxCompleted, e.Status, id)
		assert.Equal(t, 1, e.Attempts, "%s: one attempt, the pause used none", id)
	}
	var types []events.Type
	for _, env := range s.Envelopes(t, events.TopicOperations) {
		types = append(types, env.EventType)
	}
	assert.Equal(t, []events.Type{events.PartnerPaused, events.PartnerResumed}, types)
	t.Logf("%d deliveries drained %s after the resume", n, drained.Round(time.Millisecond))
}

// TestPauseDuringAnInFlightBatchStartsNoNewRequest: the relay has
// claimed a batch and its first request is in flight when the pause is
// answered; that request finishes (the entry completes), no other request
// starts after the answer, the rest wait pending with no attempt used,
// and after the resume they arrive once each.
func TestPauseDuringAnInFlightBatchStartsNoNewRequest(t *testing.T) {
	gate := make(chan struct{})
	s := newPauseStack(t, gate)
	ids := s.enqueue(t, 5)
	stop := serve(t, s.relay(t, time.Minute))
	select {
	case <-s.rec.arrived:
	case <-time.After(20 * time.Second):
		t.Fatal("the relay sent nothing")
	}
	answered := s.pauseOrResume(t, "pause", true)
	close(gate) // the request in flight finishes after the pause
	first := s.rec.arrivals()[0].id
	testenv.Eventually(t, 10*time.Second, func() bool {
		e, err := s.Store.GetOutboxEntry(context.Background(), first)
		return err == nil && e.Status == status.OutboxCompleted
	}, "the request in flight completes its entry")
	time.Sleep(3 * time.Second) // the relay keeps serving: polls every second
	for _, a := range s.rec.arrivals() {
		assert.False(t, a.at.After(answered), "request for %s started %s after the pause was answered", a.id, a.at.Sub(answered))
	}
	assert.Len(t, s.rec.arrivals(), 1)
	var rest []string
	for _, id := range ids {
		if id != first {
			rest = append(rest, id)
		}
	}
	s.requireWaiting(t, rest)

	s.pauseOrResume(t, "resume", false)
	testenv.Eventually(t, 20*time.Second, func() bool { return len(s.rec.arrivals()) >= len(ids) },
		"the rest arrive after the resume")
	stop()
	seen := map[string]int{}
	for _, a := range s.rec.arrivals() {
		seen[a.id]++
	}
	for _, id := range ids {
		assert.Equal(t, 1, seen[id], id)
	}
}
