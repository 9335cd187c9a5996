package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/internal/backoff"
	"github.com/streamops/streamops/internal/httpapi"
	"github.com/streamops/streamops/internal/local"
	"github.com/streamops/streamops/internal/outbox"
	"github.com/streamops/streamops/internal/pii"
	"github.com/streamops/streamops/internal/status"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/testenv"
)

// timedOut in a partner's answers is no answer within the relay's
// delivery timeout.
const timedOut = 0

// timedPartner is a partner endpoint that always gives the same answer and
// remembers when each delivery arrived.
type timedPartner struct {
	id     string
	answer int
	srv    *httptest.Server
	mu     sync.Mutex
	at     []time.Time
}

func newTimedPartner(t *testing.T, answer int) *timedPartner {
	p := &timedPartner{id: "partner-" + answerName(answer), answer: answer}
	quit := make(chan struct{})
	p.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		p.at = append(p.at, testenv.WallNow())
		p.mu.Unlock()
		if p.answer == timedOut {
			select { // the relay's delivery timeout (10 s) ends it
			case <-r.Context().Done():
			case <-quit:
			}
			return
		}
		w.WriteHeader(p.answer)
	}))
	t.Cleanup(p.srv.Close)
	t.Cleanup(func() { close(quit) }) // runs first: no request is left hanging
	return p
}

func answerName(answer int) string {
	if answer == timedOut {
		return "timeout"
	}
	return strconv.Itoa(answer)
}

// arrivals is when each delivery arrived.
func (p *timedPartner) arrivals() []time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]time.Time(nil), p.at...)
}

// TestPartnerRetriesKeepSeed000sScheduleWhateverThePeriod runs the local
// stack as `make run` does (relay and retry-sweeper on their schedule)
// with a real partner endpoint per answer. Seed 000: a failing delivery
// is attempted five times, 5, 10, 20 and 40 s apart, and
// resilienceAttemptCount holds the five attempts; the gaps are the seed's
// whether the schedule fires every 60 s (as on AWS) or every 7 s. A
// refusal (a 4xx other than 408 and 429) is one attempt, then dead_letter,
// and no later sweeper or relay run sends it again. It runs in real time
// (about 80 s, in parallel with the rest of the package).
func TestPartnerRetriesKeepSeed000sScheduleWhateverThePeriod(t *testing.T) {
	t.Parallel()
	for _, period := range []time.Duration{time.Minute, 7 * time.Second} {
		t.Run(period.String(), func(t *testing.T) {
			t.Parallel()
			refused := []int{400, 401, 403, 404, 410, 422}
			retried := []int{408, 429, 500, 502, 503}
			var partners []*timedPartner
			for _, a := range append(append(append([]int(nil), refused...), retried...), timedOut) {
				partners = append(partners, newTimedPartner(t, a))
			}
			var list []outbox.Partner
			for _, p := range partners {
				list = append(list, outbox.Partner{ID: p.id, Name: "Partner " + p.id, URL: p.srv.URL})
			}
			withList := withPartners(t, list...)
			s := startWith(t, "", nil, func(cfg *local.Config) {
				withList(cfg)
				cfg.ScheduleInterval = period
			})
			ctx := context.Background()
			ids := map[string]string{}
			var entries []store.OutboxEntry
			for _, p := range partners {
				ids[p.id] = store.OutboxID("evt-schedule-"+p.id, p.id)
				entries = append(entries, store.OutboxEntry{OutboxID: ids[p.id], AggregateType: "Order",
					AggregateID: "order-" + p.id, EventType: "OR_MGMT", TargetProvider: p.id,
					Payload: store.JSONDoc(`{"orderId":59734,"orderStatusLatest":"OR_PLC"}`)})
			}
			_, err := s.Store().EnqueueOutbox(ctx, entries...)
			require.NoError(t, err)

			// The fifth attempt is 75 s after the first; the sweeper runs
			// at least once after the refusals (every period, and at start).
			seed := []time.Duration(backoff.PartnerGaps)
			time.Sleep(78 * time.Second)
			for _, p := range partners {
				got := p.arrivals()
				entry, err := s.Store().GetOutboxEntry(ctx, ids[p.id])
				require.NoError(t, err)
				ev, err := s.Store().PartnerDeliveryOf(ctx, ids[p.id])
				require.NoError(t, err)
				switch {
				case p.answer == timedOut:
					// Each attempt waits out the 10 s delivery timeout, then
					// the seed's gap: the second comes 15 s after the first.
					require.GreaterOrEqual(t, len(got), 2, "%s: retried", p.id)
					assert.InDelta(t, (15 * time.Second).Seconds(), got[1].Sub(got[0]).Seconds(), 1.5, "%s", p.id)
					assert.Equal(t, status.PartnerFailed, ev.EventStatus, "%s: retry scheduled", p.id)
				case p.answer >= 400 && p.answer < 500 && p.answer != 408 && p.answer != 429:
					assert.Len(t, got, 1, "%s: one attempt, never sent again", p.id)
					assert.Equal(t, status.OutboxDeadLetter, entry.Status, "%s", p.id)
					assert.Equal(t, 1, entry.Attempts, "%s", p.id)
					assert.Equal(t, status.PartnerDeadLetter, ev.EventStatus, "%s: seed 000's retry query leaves it", p.id)
					assert.Len(t, ev.EntityMetadata.ResilienceAttemptCount, 1, "%s", p.id)
				default:
					require.Len(t, got, 5, "%s: five attempts, no sixth", p.id)
					recorded := make([]time.Time, 5)
					for n := range 5 {
						ms, err := strconv.ParseInt(ev.EntityMetadata.ResilienceAttemptCount[strconv.Itoa(n+1)], 10, 64)
						require.NoError(t, err, "%s: attempt %d recorded", p.id, n+1)
						recorded[n] = time.UnixMilli(ms)
					}
					for n, want := range seed {
						gap := got[n+1].Sub(got[n])
						assert.True(t, gap >= want-50*time.Millisecond && gap <= want+time.Second,
							"%s: attempt %d came %s after attempt %d, seed 000 says %s", p.id, n+2, gap, n+1, want)
						rgap := recorded[n+1].Sub(recorded[n])
						assert.InDelta(t, want.Seconds(), rgap.Seconds(), 1, "%s: resilienceAttemptCount %d→%d", p.id, n+1, n+2)
					}
					assert.Equal(t, status.OutboxDeadLetter, entry.Status, "%s: the fifth failure ends it", p.id)
					assert.Equal(t, 5, entry.Attempts, "%s", p.id)
					assert.Equal(t, status.PartnerFailed, ev.EventStatus, "%s: FAILED with a fifth attempt, as seed 000 ends", p.id)
				}
			}
			left, err := s.Store().FailedPartnerEventsForRetry(ctx, 0)
			require.NoError(t, err)
			for _, ev := range left {
				assert.Equal(t, ids["partner-timeout"], ev.OutboxID, "only the delivery whose retry is scheduled is for retry")
			}
			t.Logf("period %s: 500's arrivals %s", period, gaps(partners, "partner-500"))
		})
	}
}

// gaps renders the gaps between a partner's deliveries.
func gaps(partners []*timedPartner, id string) string {
	for _, p := range partners {
		if p.id == id {
			at := p.arrivals()
			var out []string
			for i := 1; i < len(at); i++ {
				out = append(out, fmt.Sprintf("%.3fs", at[i].Sub(at[i-1]).Seconds()))
			}
			return strings.Join(out, " ")
		}
	}
	return ""
}

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
		ev, err := s.Store().PartnerDeliveryOf(ctx, id)
		require.NoError(t, err)
		return ev
	}
	// runsAfter waits until the relay and the sweeper have each finished
	// three more runs: their "run finished" lines, at info when the run
	// did something and at debug when it was idle (the stack logs at
	// debug here), so every run counts.
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

// delivery is one request a partner endpoint received.
type delivery struct {
	outboxID string // the Standard Webhooks id the relay signs with
	body     []byte
}

// TestWorkflowSubmittedOverTheAPIDeliversNoPersonalData follows seed 004's
// "PII categorically prohibited" for integration_outbox.payload from the
// API to the partner: a workflow whose input records carry an email
// address and a phone number reaches a partner endpoint (one not allowed
// clear values), and its stored outbox entry, with references in their
// place, the rest of each record kept.
func TestWorkflowSubmittedOverTheAPIDeliversNoPersonalData(t *testing.T) {
	received := make(chan delivery, 8)
	partner := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		select {
		case received <- delivery{outboxID: r.Header.Get("webhook-id"), body: body}:
		default:
		}
	}))
	t.Cleanup(partner.Close)
	s := startWith(t, "", nil, withPartners(t, outbox.Partner{ID: "acme", Name: "acme", URL: partner.URL}))

	var wf struct {
		WorkflowID string `json:"workflowId"`
	}
	body := []byte(`{"name":"Partner Contact Sync","steps":["deliver"],"priority":"high","input":{"deliver":{"target":"acme"},
		"records":[{"id":"r-1","amount":129.90,"sentAtMs":1655292809853,"contact":"jane.doe@example.com",
			"note":"call +1 415 555 0100 or mail jane.doe@example.com"}]}}`)
	require.Equal(t, http.StatusCreated, s.call(http.MethodPost, "/api/workflows", body, nil, &wf))

	var got delivery
	select {
	case got = <-received:
	case <-time.After(60 * time.Second):
		t.Fatalf("workflow %s delivered nothing to the partner", wf.WorkflowID)
	}
	stored, err := s.Store().GetOutboxEntry(context.Background(), got.outboxID)
	require.NoError(t, err)
	for name, payload := range map[string][]byte{"delivered": got.body, "integration_outbox.payload": stored.Payload} {
		for _, pii := range []string{"jane.doe@example.com", "+1 415 555 0100", "415 555 0100"} {
			assert.NotContains(t, string(payload), pii, name)
		}
		var got struct {
			WorkflowID string `json:"workflowId"`
			Records    []struct {
				ID       string  `json:"id"`
				Amount   float64 `json:"amount"`
				Contact  string  `json:"contact"`
				Note     string  `json:"note"`
				SentAtMs int64   `json:"sentAtMs"`
			} `json:"records"`
		}
		require.NoError(t, json.Unmarshal(payload, &got), name)
		require.Len(t, got.Records, 1, name)
		r := got.Records[0]
		assert.Equal(t, wf.WorkflowID, got.WorkflowID, name)
		assert.Equal(t, "r-1", r.ID, name)
		assert.Equal(t, 129.90, r.Amount, name)
		ref, ok := pii.ParseReference(r.Contact)
		assert.True(t, ok && ref.Category == pii.CategoryEmail, "%s: the contact is an email reference: %s", name, r.Contact)
		assert.Regexp(t, `^call pii:phone:\S+ or mail pii:email:\S+$`, r.Note, name)
		assert.Contains(t, string(payload), `"sentAtMs":1655292809853`, "%s: a unix-millis number is no phone number", name)
	}
}
