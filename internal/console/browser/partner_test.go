//go:build browser

package browser_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/internal/status"
)

// goneBody is what acme answers a delivery of a record it no longer knows
// (410 Gone): the page shows it in the delivery log.
const goneBody = `{"error":"gone","detail":"customer 42 was deleted"}`

// acmeEndpoint is a partner endpoint the test controls: it answers 200,
// or 410 with goneBody to a delivery whose records mention "gone-" while
// gone is set, and counts the requests of each workflow's delivery.
type acmeEndpoint struct {
	gone atomic.Bool
	mu   sync.Mutex
	got  map[string]int // workflowId → requests
}

func (a *acmeEndpoint) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var p struct {
		WorkflowID string `json:"workflowId"`
	}
	_ = json.Unmarshal(body, &p)
	a.mu.Lock()
	a.got[p.WorkflowID]++
	a.mu.Unlock()
	if a.gone.Load() && strings.Contains(string(body), "gone-") {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusGone)
		_, _ = io.WriteString(w, goneBody)
		return
	}
	_, _ = io.WriteString(w, `{"ok":true}`)
}

func (a *acmeEndpoint) requests(workflowID string) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.got[workflowID]
}

// endpointView is GET /api/partners/{id}/endpoint as the test reads it.
type endpointView struct {
	Disabled    bool   `json:"disabled"`
	Paused      bool   `json:"paused"`
	PausedBy    string `json:"pausedBy"`
	PauseReason string `json:"pauseReason"`
	Backlog     struct {
		Count            int     `json:"count"`
		OldestAgeSeconds float64 `json:"oldestAgeSeconds"`
	} `json:"backlog"`
}

// deliveryView is an entry of GET /api/outbox/{id} and of the
// partner's deliveries, as the test reads it.
type deliveryView struct {
	OutboxID    string `json:"outboxId"`
	AggregateID string `json:"aggregateId"`
	Status      string `json:"status"`
	Requeues    int    `json:"requeues"`
	Resends     int    `json:"resends"`
	TraceID     string `json:"traceId"`
	DeliveryLog []struct {
		StatusCode   int    `json:"statusCode"`
		Outcome      string `json:"outcome"`
		ResponseBody string `json:"responseBody"`
	} `json:"deliveryLog"`
}

// TestConsolePartnerPage drives the partner page against the local stack
// with acme's endpoint a real HTTP server: an admin pauses acme (with a
// reason) and the page and the API say paused; deliveries enqueued then
// wait, and the page shows them as the backlog with its age while acme
// receives nothing; Resume drains them into the deliveries table.
// Deliveries acme answers 410 are dead-lettered and their log row shows
// the status code and the answer's body; the bulk requeue shows the
// API's count, refuses a count that changed since (showing the new one),
// and requeues the confirmed count; Resend of a completed delivery adds an
// attempt to its log. A partner token sees the state and the
// deliveries, no control.
// Screenshot: partner-page.
func TestConsolePartnerPage(t *testing.T) {
	acme := &acmeEndpoint{got: map[string]int{}}
	acme.gone.Store(true)
	s := startStackWith(t, acme, `,"rateLimit":50,"maxInFlight":4`)
	b := newBrowser(t)
	admin := b.newTab(t)
	admin.signIn(t, s.URL(), adminToken, "admin")
	page := s.URL() + "/console/partners/acme"
	endpoint := func() endpointView {
		var v endpointView
		require.Equal(t, http.StatusOK, s.call(http.MethodGet, "/api/partners/acme/endpoint", nil, nil, &v))
		return v
	}
	deliveries := func() map[string]deliveryView { // by workflow id
		var res struct {
			Deliveries []deliveryView `json:"deliveries"`
		}
		require.Equal(t, http.StatusOK, s.call(http.MethodGet, "/api/partners/acme/deliveries?limit=100", nil, nil, &res))
		out := map[string]deliveryView{}
		for _, d := range res.Deliveries {
			out[d.AggregateID] = d
		}
		return out
	}
	submit := func(record string) string {
		var wf struct {
			WorkflowID string          `json:"workflowId"`
			Error      json.RawMessage `json:"error"`
		}
		require.Equal(t, http.StatusCreated, s.call(http.MethodPost, "/api/workflows", fmt.Appendf(nil,
			`{"name":"Acme sync","steps":["validate","deliver"],"priority":"high","input":{"deliver":{"target":"acme","eventType":"order.synced"},"records":[{"id":%q}]}}`,
			record), nil, &wf), "%s", wf.Error)
		return wf.WorkflowID
	}
	row := func(outboxID string) string {
		return fmt.Sprintf(`[data-testid=delivery-list] tr[data-id=%q]`, outboxID)
	}
	rowStatus := func(outboxID, st string) string {
		return fmt.Sprintf(`document.querySelector(%q)?.dataset.status === %q`, row(outboxID), st)
	}
	admin.open(t, page, `document.querySelector('[data-testid=partner-status]')`, "acme's delivery state")
	assert.Equal(t, "false", eval[string](t, admin, `document.querySelector('[data-testid=partner-endpoint]').dataset.paused`))

	var orders []string
	t.Run("PauseShowsTheBacklog", func(t *testing.T) {
		admin.do(t, click(`[data-testid=pause]`))
		admin.waitFor(t, `document.querySelector('[data-testid=pause-confirm]')`, "the reason prompt")
		admin.do(t, fill(`[data-testid=pause-confirm] input[name=reason]`, "acme maintenance window"), click(`[data-testid=pause-yes]`))
		admin.waitFor(t, `document.querySelector('[data-testid=partner-endpoint]').dataset.paused === 'true' && `+
			`document.querySelector('[data-testid=pause-state] .badge')?.textContent === 'paused'`, "the paused badge")
		ep := endpoint()
		require.True(t, ep.Paused, "the API says paused")
		assert.Equal(t, "acme maintenance window", ep.PauseReason)
		assert.NotEmpty(t, ep.PausedBy)
		assert.Equal(t, "acme maintenance window", texts(t, admin, `[data-testid=pause-reason]`)[0])
		assert.Equal(t, ep.PausedBy, texts(t, admin, `[data-testid=paused-by]`)[0], "who paused")
		assert.Zero(t, count(t, admin, `[data-testid=pause]`), "no Pause while paused")

		for i := range 4 {
			orders = append(orders, submit(fmt.Sprintf("order-%d", i)))
		}
		s.eventually(60*time.Second, func() bool { return len(deliveries()) == len(orders) }, "the four deliveries enqueued")
		// The page reads the state again by itself: the backlog appears.
		admin.waitFor(t, fmt.Sprintf(`document.querySelector('[data-testid=backlog]')?.dataset.count === '%d' && `+
			`document.querySelector('[data-testid=backlog-age]')`, len(orders)), "the backlog and its age")
		assert.Equal(t, len(orders), endpoint().Backlog.Count)
		time.Sleep(time.Second) // several relay runs: none may deliver
		for _, wf := range orders {
			assert.Zero(t, acme.requests(wf), "nothing is sent while paused")
		}
		for _, d := range deliveries() {
			assert.Contains(t, []string{"pending", "failed"}, d.Status, "waiting, never dead")
		}
		admin.noConsoleErrors(t)
	})

	t.Run("ResumeDrains", func(t *testing.T) {
		admin.do(t, click(`[data-testid=resume]`))
		admin.waitFor(t, `document.querySelector('[data-testid=partner-endpoint]').dataset.paused === 'false'`, "resumed")
		assert.False(t, endpoint().Paused)
		ds := deliveries()
		for _, wf := range orders {
			admin.waitFor(t, rowStatus(ds[wf].OutboxID, "completed"), "delivery of "+wf+" completed in the table")
			assert.Equal(t, 1, acme.requests(wf), "delivered once")
		}
		admin.waitFor(t, `document.querySelector('[data-testid=backlog]').dataset.count === '0'`, "the backlog drained")
		admin.noConsoleErrors(t)
	})

	var gone []string
	t.Run("DeadLetterShowsTheAnswer", func(t *testing.T) {
		for i := range 2 {
			gone = append(gone, submit(fmt.Sprintf("gone-%d", i)))
		}
		s.eventually(60*time.Second, func() bool {
			ds := deliveries()
			return ds[gone[0]].Status == status.OutboxDeadLetter && ds[gone[1]].Status == status.OutboxDeadLetter
		}, "the 410 deliveries dead-lettered")
		d := deliveries()[gone[0]]
		admin.waitFor(t, rowStatus(d.OutboxID, "dead_letter"), "the dead letter in the table")
		admin.do(t, click(row(d.OutboxID)+` [data-testid=log-toggle]`))
		log := fmt.Sprintf(`[data-log-of=%q] [data-testid=delivery-log] tbody tr`, d.OutboxID)
		admin.waitFor(t, fmt.Sprintf(`document.querySelectorAll(%q).length === 1`, log), "its delivery log")
		cells := texts(t, admin, log+` td`)
		assert.Equal(t, "410", cells[2], "the status code")
		assert.Equal(t, "dead_letter", cells[3], "the outcome")
		assert.Equal(t, []string{goneBody}, texts(t, admin, log+` pre[data-testid=response-body]`), "the answer's body")
		if d.TraceID != "" {
			assert.Equal(t, d.TraceID, eval[string](t, admin, fmt.Sprintf(`document.querySelector(%q).dataset.traceId`, log+` a.trace-link`)))
		}
		// The status filter narrows the table to the dead letters.
		admin.open(t, page+"?status=dead_letter", `document.querySelectorAll('[data-testid=delivery-list] tbody tr[data-id]').length === 2`, "the dead letters only")
		assert.Equal(t, []string{"dead_letter", "dead_letter"}, texts(t, admin, `[data-testid=delivery-list] tbody tr[data-id] .badge`))
		admin.noConsoleErrors(t)
	})

	t.Run("BulkRequeueConfirmsTheCount", func(t *testing.T) {
		admin.open(t, page, `document.querySelector('[data-testid=bulk-requeue]')`, "the bulk requeue")
		admin.do(t, click(`[data-testid=bulk-requeue]`))
		admin.waitFor(t, `document.querySelector('[data-testid=bulk-count]')?.textContent === '2'`, "the API's count: 2")
		// Another dead letter before the confirmation: the API refuses the
		// old count and the page asks again with the new one.
		gone = append(gone, submit("gone-2"))
		s.eventually(60*time.Second, func() bool { return deliveries()[gone[2]].Status == status.OutboxDeadLetter }, "the third dead letter")
		admin.do(t, click(`[data-testid=bulk-yes]`))
		admin.waitFor(t, `document.querySelector('[data-testid=bulk-count]')?.textContent === '3' && document.querySelector('[data-testid=bulk-note]')`,
			"the new count after 409 count_changed")
		acme.gone.Store(false)
		admin.do(t, click(`[data-testid=bulk-yes]`))
		admin.waitFor(t, `document.querySelector('[data-testid=bulk-done]')?.textContent.includes('Requeued 3')`, "requeued 3")
		ds := deliveries()
		for _, wf := range gone {
			admin.waitFor(t, rowStatus(ds[wf].OutboxID, "completed"), "the requeued "+wf+" delivered")
		}
		for _, wf := range gone {
			d := deliveries()[wf]
			assert.Equal(t, 1, d.Requeues, wf)
			require.Len(t, d.DeliveryLog, 2, "the new attempt joins the log of %s", wf)
			assert.Equal(t, 200, d.DeliveryLog[1].StatusCode)
		}
		admin.noConsoleErrors(t, regexp.MustCompile(`status of 409 .*/api/partners/acme/requeue`))
	})

	t.Run("ResendAddsAnAttempt", func(t *testing.T) {
		wf := submit("order-resend")
		s.eventually(60*time.Second, func() bool { return deliveries()[wf].Status == status.OutboxCompleted }, "the order delivered")
		d := deliveries()[wf]
		admin.waitFor(t, rowStatus(d.OutboxID, "completed"), "the order's delivery in the table")
		admin.do(t, click(row(d.OutboxID)+` [data-testid=resend]`))
		s.eventually(30*time.Second, func() bool { return acme.requests(wf) == 2 }, "the resend reached acme")
		admin.waitFor(t, rowStatus(d.OutboxID, "completed")+fmt.Sprintf(` && document.querySelector(%q).textContent.includes('resent 1')`, row(d.OutboxID)),
			"resent and completed again")
		admin.do(t, click(row(d.OutboxID)+` [data-testid=log-toggle]`))
		log := fmt.Sprintf(`[data-log-of=%q] [data-testid=delivery-log] tbody tr`, d.OutboxID)
		admin.waitFor(t, fmt.Sprintf(`document.querySelectorAll(%q).length === 2`, log), "a second attempt row")
		after := deliveries()[wf]
		assert.Equal(t, 1, after.Resends)
		assert.Len(t, after.DeliveryLog, 2)
		// The picture: acme's state, its deliveries, the log of a requeued
		// dead letter open (the 410 with its body, then the 200).
		admin.do(t, click(row(d.OutboxID)+` [data-testid=log-toggle]`))
		gd := deliveries()[gone[len(gone)-1]]
		admin.do(t, click(row(gd.OutboxID)+` [data-testid=log-toggle]`))
		admin.waitFor(t, fmt.Sprintf(`document.querySelectorAll('[data-log-of=%q] [data-testid=delivery-log] tbody tr').length === 2`, gd.OutboxID), "the requeued one's log")
		admin.screenshot(t, "partner-page")
		admin.noConsoleErrors(t)
	})

	t.Run("DisabledShowsWhy", func(t *testing.T) {
		require.Equal(t, http.StatusOK, s.call(http.MethodPost, "/api/partners/acme/disable", []byte(`{"reason":"endpoint migration"}`), nil, nil))
		admin.waitFor(t, `document.querySelector('[data-testid=disabled-state]')?.dataset.disabled === 'true' && `+
			`document.querySelector('[data-testid=disabled-reason]')`, "the disabled badge and why")
		assert.Equal(t, "endpoint migration", texts(t, admin, `[data-testid=disabled-reason]`)[0])
		assert.Equal(t, "admin", texts(t, admin, `[data-testid=disabled-by]`)[0], "who disabled it")
		assert.True(t, endpoint().Disabled, "the API says disabled")
		admin.screenshot(t, "partner-disabled")
		require.Equal(t, http.StatusOK, s.call(http.MethodPost, "/api/partners/acme/enable", nil, nil, nil))
		admin.waitFor(t, `document.querySelector('[data-testid=disabled-state]')?.dataset.disabled === 'false'`, "enabled again")
		admin.noConsoleErrors(t)
	})

	t.Run("PartnerTokenSeesNoControls", func(t *testing.T) {
		tab := b.newTab(t)
		tab.signIn(t, s.URL(), acmeToken, "partner acme")
		tab.open(t, page, `document.querySelector('[data-testid=partner-status]')`, "its delivery state")
		contains(t, tab, "backlog", "rate limit")
		tab.waitFor(t, `document.querySelectorAll('[data-testid=delivery-list] tbody tr[data-id]').length > 0`, "its deliveries")
		for _, sel := range []string{`[data-testid=pause]`, `[data-testid=resume]`, `[data-testid=bulk-requeue]`, `[data-testid=resend]`, `[data-testid=requeue]`} {
			assert.Zero(t, count(t, tab, sel), sel)
		}
		tab.noConsoleErrors(t)
	})
}
