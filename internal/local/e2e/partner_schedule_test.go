package e2e

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/backoff"
	"github.com/streamops/streamops/internal/local"
	"github.com/streamops/streamops/internal/outbox"
	"github.com/streamops/streamops/internal/status"
	"github.com/streamops/streamops/internal/store"
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
		p.at = append(p.at, time.Now())
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
				ev, err := s.Store().GetPartnerEvent(ctx, events.DeriveID("", ids[p.id], "partner_event"))
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
