package e2e

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/httpapi"
	"github.com/streamops/streamops/internal/local"
	"github.com/streamops/streamops/internal/outbox"
	"github.com/streamops/streamops/internal/status"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/testenv"
)

// recoveringPartner is a partner endpoint whose answer the test changes,
// as a partner that fixes its endpoint would; it counts the deliveries it
// received and those it accepted, by webhook-id.
type recoveringPartner struct {
	srv      *httptest.Server
	mu       sync.Mutex
	answer   int
	received int
	accepted map[string]int
}

func newRecoveringPartner(t *testing.T, answer int) *recoveringPartner {
	p := &recoveringPartner{answer: answer, accepted: map[string]int{}}
	p.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		answer := p.answer
		p.received++
		if answer < 300 {
			p.accepted[r.Header.Get("webhook-id")]++
		}
		p.mu.Unlock()
		w.WriteHeader(answer)
	}))
	t.Cleanup(p.srv.Close)
	return p
}

func (p *recoveringPartner) answerWith(status int) { p.mu.Lock(); p.answer = status; p.mu.Unlock() }

// counts is how many deliveries arrived, and how many of each webhook-id
// were accepted.
func (p *recoveringPartner) counts() (int, map[string]int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	accepted := map[string]int{}
	for k, v := range p.accepted {
		accepted[k] = v
	}
	return p.received, accepted
}

// TestARefusedDeliveryStaysDeadUntilAnOperatorRequeuesIt runs the local
// stack with its relay and retry-sweeper on their schedule and a real
// partner endpoint. The partner answers 410: one attempt, dead_letter,
// and no relay or sweeper run sends it again. The partner recovers; an
// admin requeues the entry through the API (recorded as its principal),
// and the partner receives it once: completed, the partner_events
// document SUCCESS with the new round's attempt alone.
func TestARefusedDeliveryStaysDeadUntilAnOperatorRequeuesIt(t *testing.T) {
	t.Parallel()
	partner := newRecoveringPartner(t, http.StatusGone)
	const opsToken = "e2e-ops-alice-token"
	partners := withPartners(t, outbox.Partner{ID: "acme-requeue", Name: "Acme", URL: partner.srv.URL})
	s := startWith(t, "", nil, func(cfg *local.Config) {
		partners(cfg)
		cfg.AdminTokens = "ops-alice=" + opsToken
	})
	ctx := context.Background()
	id := store.OutboxID("evt-e2e-requeue", "acme-requeue")
	_, err := s.Store().EnqueueOutbox(ctx, store.OutboxEntry{OutboxID: id, AggregateType: "Order", AggregateID: "order-requeue",
		EventType: "OR_MGMT", TargetProvider: "acme-requeue", Payload: store.JSONDoc(`{"orderId":59734,"orderStatusLatest":"OR_PLC"}`)})
	require.NoError(t, err)
	entry := func() store.OutboxEntry {
		e, err := s.Store().GetOutboxEntry(ctx, id)
		require.NoError(t, err)
		return e
	}
	delivery := func() store.PartnerEvent {
		ev, err := s.Store().GetPartnerEvent(ctx, events.DeriveID("", id, "partner_event"))
		require.NoError(t, err)
		return ev
	}
	// runsAfter waits until the relay and the sweeper have each finished
	// three more runs.
	runsAfter := func() {
		t.Helper()
		count := func() (int, int) {
			logs := s.logs.String()
			return strings.Count(logs, `"msg":"outbox relay run finished"`), strings.Count(logs, `"msg":"retry-sweeper run finished"`)
		}
		relay, sweeper := count()
		s.eventually(30*time.Second, func() bool {
			r, sw := count()
			return r >= relay+3 && sw >= sweeper+3
		}, "three more relay and sweeper runs")
	}

	s.eventually(30*time.Second, func() bool { return entry().Status == status.OutboxDeadLetter }, "410 dead-letters the entry")
	runsAfter()
	received, accepted := partner.counts()
	assert.Equal(t, 1, received, "one attempt, never sent again")
	assert.Empty(t, accepted)
	assert.Equal(t, status.OutboxDeadLetter, entry().Status, "dead_letter is final")
	assert.Equal(t, 1, entry().Attempts)
	assert.Equal(t, status.PartnerDeadLetter, delivery().EventStatus)

	partner.answerWith(http.StatusOK)
	ops := testenv.API{URL: s.URL(), Token: opsToken}
	var me struct {
		ID string `json:"id"`
	}
	require.Equal(t, http.StatusOK, ops.Call(t, http.MethodGet, "/api/me", nil, nil, &me))
	var res httpapi.OutboxRequeueResponse
	require.Equal(t, http.StatusAccepted, ops.Call(t, http.MethodPost, "/api/outbox/"+id+"/requeue", nil, nil, &res))
	assert.True(t, res.Requeued)
	assert.Equal(t, id, res.OutboxID)
	assert.Equal(t, status.OutboxPending, res.Status)
	assert.Equal(t, me.ID, res.RequeuedBy, "the principal GET /api/me names")

	s.eventually(30*time.Second, func() bool { return entry().Status == status.OutboxCompleted }, "the requeued entry is delivered")
	runsAfter()
	received, accepted = partner.counts()
	assert.Equal(t, 2, received, "the refused attempt and the new round's one")
	assert.Equal(t, map[string]int{id: 1}, accepted, "received once, webhook-id = outbox id")
	e := entry()
	assert.Equal(t, status.OutboxCompleted, e.Status)
	assert.Equal(t, 1, e.Attempts, "the new round's first attempt")
	assert.Equal(t, "ops-alice", e.RequeuedBy)
	ev := delivery()
	assert.Equal(t, status.PartnerSuccess, ev.EventStatus)
	assert.Len(t, ev.EntityMetadata.ResilienceAttemptCount, 1, "the new round's attempt alone")

	var conflict httpapi.ErrorBody
	require.Equal(t, http.StatusConflict, ops.Call(t, http.MethodPost, "/api/outbox/"+id+"/requeue", nil, nil, &conflict))
	assert.Equal(t, "status_conflict", conflict.Error.Code)
	assert.Equal(t, status.OutboxCompleted, conflict.Error.Status)
}
