//go:build browser

package browser_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/internal/status"
	"github.com/streamops/streamops/internal/store"
)

// TestConsoleInABrowser drives every page of the console in headless
// Chromium against the local stack: each loads without a console error,
// shows the data seeded through the public routes, and its filters narrow
// it, and its search box finds what it should; a dead letter requeued
// from the page leaves the list and its record is on its topic again; the
// partners show their delivery endpoints; a partner token sees only its
// own partner, and not another's endpoint. A
// screenshot of each page goes to STREAMOPS_CONSOLE_SCREENSHOTS.
func TestConsoleInABrowser(t *testing.T) {
	began := time.Now()
	s := startStack(t)
	b := newBrowser(t)
	s.seed()
	t.Logf("stack up and seeded in %s", time.Since(began).Round(time.Millisecond))
	admin := b.newTab(t)
	admin.signIn(t, s.URL(), adminToken, "admin")
	admin.noConsoleErrors(t)
	base := s.URL() + "/console"

	t.Run("Overview", func(t *testing.T) {
		admin.open(t, base+"?window=1h", `document.querySelector('[data-testid=event-rate]')`, "the events-per-minute chart")
		assert.Equal(t, "2", texts(t, admin, `[data-testid=open-dead-letters] .big`)[0], "two open dead letters")
		assert.Contains(t, texts(t, admin, `[data-testid=open-breakers]`)[0], "acme")
		assert.Equal(t, 60, count(t, admin, `[data-testid=event-rate] rect.bar`), "one bar a minute")
		assert.Regexp(t, `Events per minute: [1-9][0-9]* in the window`, texts(t, admin, `[data-testid=event-rate] figcaption`)[0])
		contains(t, admin, "Workflows by status", "completed", "email_notification", "stripe", "acme")
		admin.screenshot(t, "overview")
		admin.noConsoleErrors(t)

		admin.do(t, fill(`select[name=window]`, "15m"), submit(`select[name=window]`))
		admin.waitFor(t, `location.search === '?window=15m' && document.querySelectorAll('[data-testid=event-rate] rect.bar').length === 15`, "the 15m window")
		admin.noConsoleErrors(t)
	})

	t.Run("Events", func(t *testing.T) {
		admin.open(t, base+"/events?limit=1000", `document.querySelectorAll('[data-testid=event-list] > li').length > 0`, "the event list")
		all := count(t, admin, `[data-testid=event-list] > li`)
		contains(t, admin, s.stripeWorkflow, "workflow.completed", "task.completed", "webhook.received")
		admin.screenshot(t, "events")

		// The form's filters are the API's (its served OpenAPI document,
		// derived from store.ReplayFilter), and only those and the page size.
		var filters []string
		for _, f := range store.FilterFields() {
			filters = append(filters, f.Name)
		}
		fields, err := json.Marshal(append(filters, "limit"))
		require.NoError(t, err)
		admin.waitFor(t, fmt.Sprintf(`JSON.stringify([...document.querySelectorAll('form.filters [name]')].map(e => e.name).sort()) === JSON.stringify(%s.sort())`, fields),
			"a field per filter of the API")

		admin.do(t, fill(`input[name=event_types]`, "workflow.completed"),
			fill(`input[name=limit]`, ""),
			submit(`input[name=event_types]`))
		admin.waitFor(t, `location.search === '?event_types=workflow.completed' && document.querySelectorAll('[data-testid=event-list] > li').length > 0 && `+
			`[...document.querySelectorAll('[data-testid=event-list] code.type')].every(e => e.textContent === 'workflow.completed')`, "only workflow.completed")
		completed := count(t, admin, `[data-testid=event-list] > li`)
		assert.Less(t, completed, all, "the filter narrows the list")
		assert.Equal(t, len(s.acmeExecutions)+1, completed, "the Stripe workflow and the five acme ones")

		// The envelope and the payload, pretty-printed, one click away.
		admin.do(t, click(`[data-testid=event-list] > li summary`))
		admin.waitFor(t, `[...document.querySelectorAll('pre.json')].some(p => p.textContent.includes('"stepsCompleted"') && p.textContent.includes('\n  '))`, "the pretty-printed payload")

		// Cursor paging: the next page starts where the first ended.
		admin.open(t, base+"/events?limit=3", `document.querySelectorAll('[data-testid=event-list] > li').length === 3`, "a page of three")
		first := texts(t, admin, `[data-testid=event-list] summary`)
		admin.do(t, click(`.pager a`))
		admin.waitFor(t, fmt.Sprintf(`location.search.includes('cursor=') && document.querySelectorAll('[data-testid=event-list] > li').length === 3 && `+
			`document.querySelector('[data-testid=event-list] summary').textContent.trim() !== %q`, first[0]), "the second page")
		second := texts(t, admin, `[data-testid=event-list] summary`)
		for _, e := range second {
			assert.NotContains(t, first, e, "a page repeats nothing of the one before")
		}
		admin.noConsoleErrors(t)

		// The search box (GET /api/events/search): the Stripe delivery's
		// execution id finds that execution's events and nothing else.
		var want []string
		for _, typ := range s.eventTypes(url.Values{"execution_id": {s.stripeExecution}}) {
			want = append(want, string(typ))
		}
		admin.open(t, base+"/events", `document.querySelectorAll('[data-testid=event-list] > li').length > 0`, "the event list")
		admin.do(t, chromedp.SendKeys(chromedp.CSS(`form.search input[name=q]`), s.stripeExecution), submit(`form.search input[name=q]`))
		admin.waitFor(t, fmt.Sprintf(`location.search === %q && document.querySelector('[data-testid=search-summary]')`, "?q="+s.stripeExecution), "the search results")
		assert.ElementsMatch(t, want, texts(t, admin, `[data-testid=event-list] code.type`), "the execution's events")
		assert.Contains(t, want, "webhook.received")
		contains(t, admin, s.stripeWorkflow, fmt.Sprintf("%d events matching", len(want)))
		admin.screenshot(t, "events-search")
		admin.noConsoleErrors(t)
	})

	t.Run("Timeline", func(t *testing.T) {
		admin.open(t, base+"/timeline/"+s.stripeWorkflow, `document.querySelectorAll('[data-testid=timeline] tbody tr').length > 0 && `+
			`document.querySelector('[data-testid=workflow-state]')`, "the workflow's timeline")
		types := texts(t, admin, `[data-testid=timeline] tbody tr td:nth-child(5) summary`)
		assert.Equal(t, []string{"workflow.created", "workflow.processing", "workflow.step.completed", "workflow.step.completed",
			"workflow.step.completed", "workflow.completed"}, types, "causal order")
		assert.Equal(t, []string{"completed", "completed", "completed"}, texts(t, admin, `[data-testid=workflow-state] li.step .badge`), "step progress")
		contains(t, admin, "Invoice Sync", "took ", "step 1 validate")
		admin.screenshot(t, "timeline")
		admin.noConsoleErrors(t)

		// A failed workflow: the step that failed, and why.
		admin.open(t, base+"/timeline/"+s.failedWorkflow, `document.querySelectorAll('[data-testid=workflow-state] li.step').length === 2 && `+
			`document.querySelector('[data-testid=timeline] tr.failed')`, "the failed workflow's timeline")
		assert.Equal(t, []string{"completed", "failed"}, texts(t, admin, `[data-testid=workflow-state] li.step .badge`))
		assert.Equal(t, []string{"workflow.failed"}, texts(t, admin, `[data-testid=timeline] tr.failed td:nth-child(5) summary`))
		contains(t, admin, "no delivery target")
		admin.screenshot(t, "timeline-failed")

		// A task: its attempts and result.
		admin.open(t, base+"/timeline/"+s.taskID, `document.querySelector('[data-testid=task-state]') && `+
			`document.querySelectorAll('[data-testid=timeline] tbody tr').length === 3`, "the task's timeline")
		assert.Equal(t, []string{"task.created", "task.processing", "task.completed"}, texts(t, admin, `[data-testid=timeline] tbody tr td:nth-child(5) summary`))
		assert.Equal(t, []string{"completed"}, texts(t, admin, `[data-testid=task-state] .badge`))
		admin.noConsoleErrors(t)
	})

	t.Run("WebhookEvents", func(t *testing.T) {
		admin.open(t, base+"/webhooks", `document.querySelectorAll('[data-testid=webhook-list] > li').length === 7`, "seven webhook events")
		admin.do(t, click(`[data-testid=webhook-list] > li summary`))
		admin.waitFor(t, `[...document.querySelectorAll('pre.json')].some(p => p.textContent.includes('[REDACTED]') || p.textContent.includes('"id"'))`, "a stored payload")
		admin.screenshot(t, "webhooks")
		admin.do(t, click(`.since a:nth-of-type(2)`)) // "last 1 h": all seven are that recent
		admin.waitFor(t, `location.search.startsWith('?from=') && document.querySelectorAll('[data-testid=webhook-list] > li').length === 7`, "the last hour's webhook events")

		// The failed one, by provider and status. The retry-sweeper routes a
		// failed webhook again until its fifth attempt; after that only a
		// person retries it, here from the page.
		var before int
		s.eventually(30*time.Second, func() bool {
			before = s.webhookRetries(s.failedWebhook)
			return before >= 5
		}, "the sweeper did not give up on the failed webhook")
		admin.open(t, base+"/webhooks?provider=acme&status=failed", `location.search.includes('status=failed') && `+
			`document.querySelectorAll('[data-testid=webhook-list] > li').length === 1`, "the one failed acme webhook")
		assert.Equal(t, []string{s.failedWebhook}, eval[[]string](t, admin, `[...document.querySelectorAll('[data-testid=webhook-list] > li')].map(l => l.dataset.id)`))
		admin.do(t, click(`[data-testid=webhook-list] > li summary`))
		contains(t, admin, `entity_id: body field "order.id" is missing`)
		// Routed again, it fails again for the same reason: the page shows
		// the API's answer and the row its new attempt count.
		admin.do(t, click(`[data-testid=webhook-list] button.retry`))
		admin.waitFor(t, fmt.Sprintf(`document.querySelector('[data-testid=webhook-list]')?.textContent.includes('attempts %d')`, before+1), "the retried webhook")
		contains(t, admin, "400 invalid_payload")
		assert.Equal(t, before+1, s.webhookRetries(s.failedWebhook), "the retry went through POST /api/webhook-events/{id}/retry")
		admin.noConsoleErrors(t, regexp.MustCompile(`status of 400 .*/api/webhook-events/[^/]+/retry`))

		// The Stripe delivery's run completed: no plain Retry, only a new
		// attempt asked with a reason, which the row then records.
		s.eventually(30*time.Second, func() bool { return s.webhookRow("stripe", s.stripeExecution).Status == status.WebhookCompleted },
			"the Stripe delivery's workflow did not complete")
		admin.open(t, base+"/webhooks?provider=stripe", `document.querySelectorAll('[data-testid=webhook-list] > li [data-testid=webhook-new-attempt]').length === 1`,
			"the completed Stripe delivery with its new-attempt control")
		assert.Zero(t, eval[int](t, admin, `document.querySelectorAll('[data-testid=webhook-list] button.retry').length`), "no plain retry of a run that ended")
		admin.do(t, chromedp.SendKeys(chromedp.CSS(`[data-testid=webhook-new-attempt] input[name=reason]`), "records fixed upstream"))
		admin.do(t, click(`[data-testid=new-attempt-open]`))
		admin.do(t, click(`[data-testid=new-attempt-yes]`))
		admin.waitFor(t, `document.querySelector('[data-testid=webhook-list]')?.textContent.includes('new attempt 2')`, "the row on its new attempt")
		row := s.webhookRow("stripe", s.stripeExecution)
		require.Len(t, row.Attempts, 1)
		assert.Equal(t, "records fixed upstream", row.Attempts[0].Reason)
		assert.Equal(t, status.WebhookCompleted, row.Attempts[0].PreviousStatus)
		assert.NotEmpty(t, row.Attempts[0].RequestedBy, "who asked is recorded")
	})

	t.Run("DeadLetters", func(t *testing.T) {
		dl0, dl1 := s.deadLetterOf(s.poison[0]), s.deadLetterOf(s.poison[1])
		admin.open(t, base+"/dead-letters?topic=tasks", `document.querySelectorAll('[data-testid=dead-letter-list] tbody tr').length === 2`, "two dead letters")
		contains(t, admin, fmt.Sprintf("tasks-%d@%d", dl0.Partition, dl0.Offset), "undecodable", "task-processor")
		admin.screenshot(t, "dead-letters")

		admin.open(t, base+"/dead-letters?topic=workflows", `document.querySelector('.empty')`, "no dead letter of workflows")

		// Requeue one from the page: it leaves the open list, and its record
		// is on tasks again (the processor dead-letters it anew, under its
		// new offset).
		admin.open(t, base+"/dead-letters?topic=tasks", `document.querySelectorAll('[data-testid=dead-letter-list] tbody tr').length === 2`, "two dead letters")
		admin.do(t, click(fmt.Sprintf(`tr[data-id=%q] button.requeue`, dl0.DeadLetterID)))
		admin.waitFor(t, fmt.Sprintf(`!document.querySelector('tr[data-id=%q]')`, dl0.DeadLetterID), "the requeued dead letter to leave the list")
		assert.Equal(t, 2, s.recordsWithValue("tasks", s.poison[0].Value, 2, 20*time.Second), "the record is on its topic again")
		admin.noConsoleErrors(t)

		// Requeue all that match, after a confirmation that shows the count.
		s.eventually(30*time.Second, func() bool { return s.openDeadLetters("tasks") == 2 }, "the requeued record was not dead-lettered again")
		admin.open(t, base+"/dead-letters?topic=tasks", `document.querySelectorAll('[data-testid=dead-letter-list] tbody tr').length === 2`, "two open dead letters")
		admin.do(t, click(`[data-testid=bulk-requeue]`))
		admin.waitFor(t, `document.querySelector('[data-testid=bulk-count]')?.textContent === '2'`, "the confirmation with the count")
		admin.screenshot(t, "dead-letters-confirm")
		admin.do(t, click(`[data-testid=bulk-yes]`))
		admin.waitFor(t, `document.querySelector('.bulk')?.textContent.includes('Requeued 2.')`, "the bulk requeue")
		assert.Equal(t, 2, s.recordsWithValue("tasks", s.poison[1].Value, 2, 20*time.Second), "the second record is on its topic again")
		assert.NotContains(t, s.openDeadLetterIDs("tasks"), dl1.DeadLetterID)
		admin.noConsoleErrors(t)
	})

	t.Run("Replays", func(t *testing.T) {
		admin.open(t, base+"/replays?event_types=task.completed", `document.querySelector('[data-testid=replay-count]')`, "the dry run")
		assert.Equal(t, "1", texts(t, admin, `[data-testid=replay-count]`)[0], "one task completed")
		contains(t, admin, s.taskID)
		admin.screenshot(t, "replays")
		admin.do(t, click(`[data-testid=replay-start]`))
		admin.waitFor(t, `location.pathname.startsWith('/console/replays/replay') || location.pathname.split('/').length === 4`, "the session page")
		admin.waitFor(t, `document.querySelector('[data-testid=replay-session] .badge')?.textContent === 'completed'`, "the replay to complete")
		contains(t, admin, "1 / 1 (100.0%)", "Errors (0)")
		admin.screenshot(t, "replay-session")
		admin.noConsoleErrors(t)
	})

	t.Run("Partners", func(t *testing.T) {
		admin.open(t, base+"/partners", `document.querySelectorAll('[data-testid=partner-list] tbody tr').length === 2`, "acme and globex")
		assert.Equal(t, []string{"acme", "globex"}, texts(t, admin, `[data-testid=partner-list] td:first-child`))
		assert.Equal(t, []string{"Acme Corp", "Globex"}, texts(t, admin, `[data-testid=partner-list] td:nth-child(2)`))
		assert.Equal(t, []string{s.acmeURL, globexShown}, texts(t, admin, `[data-testid=partner-list] td.endpoint`),
			"each partner's delivery endpoint from the partners file, without credentials")
		assert.Equal(t, []string{"open", "closed"}, texts(t, admin, `[data-testid=partner-list] .badge`), "acme's breaker is open")
		text := admin.source(t)
		assert.NotContains(t, text, "globex-password")
		assert.NotContains(t, text, "globex-key")
		admin.screenshot(t, "partners")
		admin.do(t, click(`[data-testid=partner-list] a`))
		admin.waitFor(t, `document.querySelector('[data-testid=partner-endpoint]') && document.querySelectorAll('[data-testid=partner-events] > li').length === 10`,
			"acme's five deliveries in and five out")
		assert.Contains(t, texts(t, admin, `[data-testid=delivery-url]`)[0], "POST "+s.acmeURL, "the endpoint acme's deliveries go to")
		contains(t, admin, "503", "OUT", "IN", "order-1000", "POST /webhooks/acme", "(hmac signature)")
		admin.do(t, click(`[data-testid=partner-events] > li[data-direction=OUT] summary`))
		admin.waitFor(t, `document.querySelectorAll('[data-testid=attempt-log] tbody tr').length >= 1`, "an attempt log")
		admin.screenshot(t, "partner")
		admin.noConsoleErrors(t)
	})

	t.Run("PartnerTokenSeesOnlyItsOwnScope", func(t *testing.T) {
		acme := b.newTab(t)
		acme.signIn(t, s.URL(), acmeToken, "partner acme")
		assert.Equal(t, []string{"Events", "Partners"}, texts(t, acme, `header nav a`), "no admin page is offered")
		acme.waitFor(t, `document.querySelectorAll('[data-testid=event-list] > li').length > 0`, "acme's events")
		text := acme.source(t)
		assert.NotContains(t, text, s.stripeWorkflow, "not another's workflow")
		assert.NotContains(t, text, "invoice", "not the Stripe delivery")
		for _, wf := range s.acmeWorkflows {
			assert.Contains(t, text, wf, "its own workflows")
		}
		acme.screenshot(t, "partner-token-events")
		acme.noConsoleErrors(t)

		// Its own events only in the search, too.
		acme.open(t, base+"/events?q="+s.stripeExecution, `document.querySelector('[data-testid=search-summary]')`, "the search")
		assert.Zero(t, count(t, acme, `[data-testid=event-list] > li`), "not the Stripe delivery's events")
		acme.open(t, base+"/events?q="+s.acmeExecutions[0], `document.querySelectorAll('[data-testid=event-list] > li').length > 0`, "its own delivery's events")
		acme.noConsoleErrors(t)

		acme.open(t, base+"/partners", `document.querySelectorAll('[data-testid=partner-list] tbody tr').length === 1`, "its own partner only")
		assert.Equal(t, []string{"acme"}, texts(t, acme, `[data-testid=partner-list] td:first-child`))
		assert.Equal(t, []string{s.acmeURL}, texts(t, acme, `[data-testid=partner-list] td.endpoint`), "its own endpoint")
		assert.NotContains(t, acme.source(t), "globex", "not another partner's")
		// The dead letters page is not a page for it: it lands on its own
		// partner page instead, without asking the API for anything it may not read.
		acme.open(t, base+"/dead-letters", `document.querySelector('[data-testid=partner-endpoint]')`, "its partner page")
		assert.Zero(t, count(t, acme, `[data-testid=dead-letter-list]`))
		acme.noConsoleErrors(t)

		// Another's workflow by its id: the history is scoped, so its
		// timeline is empty, and no workflow state is asked for.
		acme.open(t, base+"/timeline/"+s.stripeWorkflow, `document.querySelector('.empty')`, "an empty timeline")
		assert.Zero(t, count(t, acme, `[data-testid=timeline]`))
		assert.Zero(t, count(t, acme, `[data-testid=workflow-state]`))
		acme.noConsoleErrors(t)

		// Another partner's page: the API refuses, and the page shows that
		// and nothing else. The browser logs the two 403 answers.
		acme.open(t, base+"/partners/globex", `document.querySelector('[role=alert]')`, "the refusal")
		contains(t, acme, "403 forbidden")
		assert.Zero(t, count(t, acme, `[data-testid=partner-events]`))
		assert.Zero(t, count(t, acme, `[data-testid=partner-endpoint]`))
		assert.Zero(t, count(t, acme, `[data-testid=partner-config]`), "nor its configuration")
		assert.NotContains(t, acme.source(t), "hooks.globex.example", "nor its endpoint")
		acme.noConsoleErrors(t, regexp.MustCompile(`status of 403 .*/api/partners/globex/`))
	})
	t.Run("ARefusedTokenIsAskedForAgain", func(t *testing.T) {
		tb := b.newTab(t)
		tb.do(t, chromedp.Navigate(base+"/events"), chromedp.WaitVisible(chromedp.CSS(`input[name=token]`)),
			fill(`input[name=token]`, "not-a-token"), submit(`input[name=token]`))
		tb.waitFor(t, `document.querySelector('input[name=token]') && document.body.innerText.includes('401 unauthenticated')`, "the sign-in form again")
		assert.Empty(t, eval[string](t, tb, `sessionStorage.getItem('streamops.console.token') || ''`), "the refused token is forgotten")
		tb.noConsoleErrors(t, regexp.MustCompile(`status of 401 .*/api/me`))
		tb.signIn(t, s.URL(), adminToken, "admin")
		tb.noConsoleErrors(t)
	})
	// Last, as it changes the failed workflow the Timeline subtest reads:
	// the Rerun control of a failed workflow's timeline, defaulting to
	// the failed step, asks before it POSTs /api/workflows/{id}/rerun,
	// and the new attempt's events join the timeline (the delivery has
	// still no target, so attempt 2 fails in deliver again).
	t.Run("Rerun", func(t *testing.T) {
		admin.open(t, base+"/timeline/"+s.failedWorkflow, `document.querySelector('[data-testid=rerun] select[name=fromStep]') && `+
			`document.querySelector('[data-testid=timeline] tr.failed')`, "the failed workflow's rerun control")
		assert.Equal(t, "deliver", eval[string](t, admin, `document.querySelector('[data-testid=rerun] select[name=fromStep]').value`), "the failed step by default")
		assert.Equal(t, "attempt 1", texts(t, admin, `[data-testid=attempt]`)[0])
		admin.do(t, click(`[data-testid=rerun-open]`))
		admin.waitFor(t, `document.querySelector('[data-testid=rerun-confirm]')`, "the confirmation")
		contains(t, admin, "from step deliver as attempt 2")
		admin.screenshot(t, "timeline-rerun-confirm")
		admin.do(t, click(`[data-testid=rerun-yes]`))
		admin.waitFor(t, `document.querySelector('[data-testid=attempt]').textContent === 'attempt 2' && `+
			`[...document.querySelectorAll('[data-testid=timeline] tbody tr')].filter(r => r.querySelector('td.attempt').textContent === '2').length === 3`,
			"attempt 2 in the timeline: created, processing, failed")
		attempts := texts(t, admin, `[data-testid=timeline] tbody tr td.attempt`)
		types := texts(t, admin, `[data-testid=timeline] tbody tr td:nth-child(5) summary`)
		var second []string
		for i, a := range attempts {
			if a == "2" {
				second = append(second, types[i])
			}
		}
		assert.Equal(t, []string{"workflow.created", "workflow.processing", "workflow.failed"}, second, "the new attempt's own events")
		var wf struct {
			Attempt int    `json:"attempt"`
			Status  string `json:"status"`
		}
		require.Equal(t, http.StatusOK, s.call(http.MethodGet, "/api/workflows/"+s.failedWorkflow, nil, nil, &wf))
		assert.Equal(t, 2, wf.Attempt, "one rerun")
		admin.screenshot(t, "timeline-rerun")
		admin.noConsoleErrors(t)
	})
	t.Logf("the whole console test took %s", time.Since(began).Round(time.Millisecond))
}

// webhookRow is provider's webhook event id as GET /api/webhook-events
// shows it.
func (s *stack) webhookRow(provider, id string) store.WebhookEvent {
	s.t.Helper()
	var page struct {
		WebhookEvents []store.WebhookEvent `json:"webhookEvents"`
	}
	require.Equal(s.t, http.StatusOK, s.call(http.MethodGet, "/api/webhook-events?limit=1000&provider="+provider, nil, nil, &page))
	for _, w := range page.WebhookEvents {
		if w.EventID == id {
			return w
		}
	}
	s.t.Fatalf("no webhook event %s", id)
	return store.WebhookEvent{}
}

// webhookRetries is an acme webhook event's retry_count, through the API.
func (s *stack) webhookRetries(id string) int {
	s.t.Helper()
	return s.webhookRow("acme", id).RetryCount
}

// openDeadLetterIDs lists the ids of a topic's open dead letters.
func (s *stack) openDeadLetterIDs(topic string) []string {
	s.t.Helper()
	var page struct {
		DeadLetters []store.DeadLetterEntry `json:"deadLetters"`
	}
	require.Equal(s.t, http.StatusOK, s.call(http.MethodGet, "/api/dead-letters?status=open&topic="+url.QueryEscape(topic), nil, nil, &page))
	var ids []string
	for _, d := range page.DeadLetters {
		ids = append(ids, d.DeadLetterID)
	}
	slices.Sort(ids)
	return ids
}

func (s *stack) openDeadLetters(topic string) int { return len(s.openDeadLetterIDs(topic)) }
