//go:build browser

package browser_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/local"
	"github.com/streamops/streamops/internal/provider"
	"github.com/streamops/streamops/internal/status"
	"github.com/streamops/streamops/internal/testenv"
)

// sentTrace is the trace id of the traceparent the Stripe webhook of the
// trace test is sent with, as a provider that traces would send it.
const (
	sentTrace       = "0af7651916cd43dd8448eb211c80319c"
	sentTraceparent = "00-" + sentTrace + "-b7ad6b7169203331-01"
)

// traceNode is one node of GET /api/traces/{id}, as the test reads it.
type traceNode struct {
	ID       string         `json:"id"`
	ParentID string         `json:"parentId"`
	Kind     string         `json:"kind"`
	Name     string         `json:"name"`
	Status   string         `json:"status"`
	Ref      string         `json:"ref"`
	Detail   map[string]any `json:"detail"`
}

// TestTraceWaterfall sends a Stripe webhook with a traceparent header
// through the local stack, waits for its workflow to complete, and opens
// its trace from the top bar's search box (the traceparent pasted): the
// waterfall shows the webhook, the workflow, its steps and the events of
// the delivery, all stored under the sent trace id. The Trace links of
// the webhook event, of the events list and of the workflow's timeline
// open the same page; an unknown trace id and an invalid one are said in
// words. Screenshot: trace-waterfall.
func TestTraceWaterfall(t *testing.T) {
	began := time.Now()
	s := startStack(t)
	b := newBrowser(t)

	body := local.SampleInvoiceFinalized(time.Now())
	h := testenv.Sign(t, s.Providers(), "stripe", body, stripeSecret, provider.SignOptions{Now: time.Now()})
	h.Set("traceparent", sentTraceparent)
	var receipt struct {
		WebhookEventID string `json:"webhookEventId"`
	}
	require.Equal(t, http.StatusAccepted, s.call(http.MethodPost, "/webhooks/stripe", body, h, &receipt))
	execution := receipt.WebhookEventID
	s.eventually(60*time.Second, func() bool {
		for _, typ := range s.eventTypes(url.Values{"execution_id": {execution}}) {
			if typ == events.WorkflowCompleted {
				return true
			}
		}
		return false
	}, "the Stripe webhook's workflow did not complete")
	workflow := s.workflowOf(execution)
	var wf struct {
		Name     string `json:"name"`
		Status   string `json:"status"`
		Progress []struct {
			Name string `json:"name"`
		} `json:"progress"`
	}
	var eventIDs []string
	var trace struct {
		TraceID string      `json:"traceId"`
		Nodes   []traceNode `json:"nodes"`
	}
	// The workflow's document, its events and its trace are written by
	// separate commands: the trace is read until it holds every step of
	// the completed workflow and every event of the delivery, so the
	// page is checked against the whole of it.
	s.eventually(60*time.Second, func() bool {
		require.Equal(t, http.StatusOK, s.call(http.MethodGet, "/api/workflows/"+workflow, nil, nil, &wf))
		if wf.Status != status.WorkflowCompleted {
			return false
		}
		var page struct {
			Events []events.Envelope `json:"events"`
		}
		require.Equal(t, http.StatusOK, s.call(http.MethodGet, "/api/events?limit=1000&execution_id="+execution, nil, nil, &page))
		eventIDs = eventIDs[:0]
		for _, e := range page.Events {
			eventIDs = append(eventIDs, e.EventID)
		}
		require.Equal(t, http.StatusOK, s.call(http.MethodGet, "/api/traces/"+sentTrace, nil, nil, &trace))
		kinds := map[string]int{}
		for _, n := range trace.Nodes {
			kinds[n.Kind]++
		}
		return kinds["step"] == len(wf.Progress) && kinds["event"] == len(eventIDs)
	}, "the trace did not come to hold every step and event of the completed workflow")

	// Every event of the delivery carries the sent trace id.
	var page struct {
		Events []events.Envelope `json:"events"`
	}
	require.Equal(t, http.StatusOK, s.call(http.MethodGet, "/api/events?limit=1000&execution_id="+execution, nil, nil, &page))
	require.NotEmpty(t, page.Events)
	for _, e := range page.Events {
		assert.Equal(t, sentTrace, e.Metadata.TraceID, "%s %s", e.EventType, e.EventID)
	}
	require.Equal(t, sentTrace, trace.TraceID)
	var workflows []string
	for _, n := range trace.Nodes {
		if n.Kind == "workflow" {
			workflows = append(workflows, n.Ref)
		}
	}
	require.Equal(t, []string{workflow}, workflows, "the webhook's workflow is under its trace")
	t.Logf("stack up, webhook run and traced in %s (%d nodes)", time.Since(began).Round(time.Millisecond), len(trace.Nodes))

	admin := b.newTab(t)
	admin.signIn(t, s.URL(), adminToken, "admin")
	base := s.URL() + "/console"
	rows := `document.querySelectorAll('[data-testid=waterfall] .wf-row[data-id]')`
	onTrace := fmt.Sprintf(`location.pathname === %q && document.querySelector('[data-testid=trace]')?.dataset.traceId === %q && %s.length > 0`,
		"/console/traces/"+sentTrace, sentTrace, rows)

	t.Run("SearchBox", func(t *testing.T) {
		admin.do(t, fill(`header [data-testid=trace-search] input`, sentTraceparent), submit(`header [data-testid=trace-search] input`))
		admin.waitFor(t, onTrace+fmt.Sprintf(` && %s.length === %d`, rows, len(trace.Nodes)), "the trace page, every node a row")
		kinds := eval[[]string](t, admin, `[...document.querySelectorAll('.wf-row[data-id]')].map(r => r.dataset.kind + ' ' + r.querySelector('.node-name').textContent)`)
		for _, want := range []string{"webhook ", "workflow " + wf.Name} {
			assert.True(t, hasPrefix(kinds, want), "a %q row in %v", want, kinds)
		}
		for _, st := range wf.Progress {
			assert.Contains(t, kinds, "step "+st.Name, "the step %s", st.Name)
		}
		var shown []string
		for _, n := range trace.Nodes {
			if n.Kind == "event" {
				shown = append(shown, n.Ref)
			}
		}
		assert.ElementsMatch(t, eventIDs, shown, "the delivery's events, every one under the trace")
		assert.Equal(t, []string{"0"}, eval[[]string](t, admin,
			`[...document.querySelectorAll('.wf-row[data-kind=webhook]')].map(r => r.dataset.depth)`), "the webhook is the root")
		assert.Equal(t, len(eventIDs), count(t, admin, `.wf-row[data-kind=event] .marker`), "events are points")
		assert.Equal(t, 1+len(wf.Progress), count(t, admin, `.wf-row[data-kind=workflow] .bar, .wf-row[data-kind=step] .bar`), "the workflow and its steps are bars")

		// The workflow's row: its detail links its timeline.
		admin.do(t, click(`.wf-row[data-kind=workflow]`))
		admin.waitFor(t, `document.querySelector('[data-testid=node-detail]')?.dataset.id.startsWith('workflow:')`, "the workflow's detail")
		assert.Equal(t, "/console/timeline/"+workflow, eval[string](t, admin, `document.querySelector('[data-testid=node-link]').getAttribute('href')`))
		admin.screenshot(t, "trace-waterfall")
		admin.do(t, click(`[data-testid=node-link]`))
		admin.waitFor(t, fmt.Sprintf(`location.pathname === %q`, "/console/timeline/"+workflow), "the workflow's timeline")
		admin.noConsoleErrors(t)
	})

	for _, c := range []struct{ name, page, ready, link string }{
		{"FromTheWebhookEvent", "/webhooks?provider=stripe", fmt.Sprintf(`document.querySelector('[data-id=%q] summary')`, execution),
			fmt.Sprintf(`[data-id=%q] a.trace-link`, execution)},
		{"FromTheEventsList", "/events?execution_id=" + execution, `document.querySelectorAll('[data-testid=event-list] a.trace-link').length > 0`,
			`[data-testid=event-list] a.trace-link`},
		{"FromTheTimeline", "/timeline/" + workflow, `document.querySelector('h1 a.trace-link')`, `h1 a.trace-link`},
	} {
		t.Run(c.name, func(t *testing.T) {
			admin.open(t, base+c.page, c.ready, "the page")
			if c.name == "FromTheWebhookEvent" {
				admin.do(t, click(fmt.Sprintf(`[data-id=%q] summary`, execution)))
			}
			admin.waitFor(t, fmt.Sprintf(`document.querySelector(%q)?.dataset.traceId === %q`, c.link, sentTrace), "the Trace link")
			if c.name == "FromTheEventsList" {
				assert.Equal(t, len(eventIDs), count(t, admin, c.link), "every event links its trace")
			}
			admin.do(t, click(c.link))
			admin.waitFor(t, onTrace, "the trace page")
			admin.noConsoleErrors(t)
		})
	}

	for _, c := range []struct{ name, id, status, why string }{
		{"UnknownTrace", strings.Repeat("ab", 16), "404", "No trace with this id is stored"},
		{"InvalidTrace", "not-a-trace-id", "400", "is not a trace id"},
	} {
		t.Run(c.name, func(t *testing.T) {
			admin.open(t, base+"/traces/"+c.id, `document.querySelector('[data-testid=trace-error]')`, "the error")
			assert.Equal(t, c.status, eval[string](t, admin, `document.querySelector('[data-testid=trace-error]').dataset.status`))
			contains(t, admin, c.why)
			assert.Zero(t, count(t, admin, `[data-testid=waterfall]`))
			admin.noConsoleErrors(t, regexpStatus(c.status))
		})
	}
}

// hasPrefix reports whether one of ss starts with prefix.
func hasPrefix(ss []string, prefix string) bool {
	for _, s := range ss {
		if strings.HasPrefix(s, prefix) {
			return true
		}
	}
	return false
}
