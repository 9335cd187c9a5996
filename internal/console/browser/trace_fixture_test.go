//go:build browser

package browser_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/internal/console"
	"github.com/streamops/streamops/internal/httpapi"
)

// fixtureTrace is the contract's example answer of GET /api/traces/{id}
// (CONTRACT26 "The trace view"), one node of every kind, with a delivery
// that failed once (HTTP 500) and succeeded on its second attempt, and a
// dead letter.
const fixtureTraceID = "4bf92f3577b34da6a3ce929d0e0e4736"

func fixtureTrace(workflowStatus string) map[string]any {
	wf := map[string]any{"id": "workflow:wf-1", "parentId": "webhook:whk_1", "kind": "workflow", "name": "Invoice Sync",
		"status": workflowStatus, "startedAt": "2026-01-04T01:00:00.010Z", "offsetMs": 10, "ref": "wf-1",
		"detail": map[string]any{"priority": "normal"}}
	if workflowStatus == "completed" {
		wf["endedAt"], wf["durationMs"] = "2026-01-04T01:00:00.900Z", 890
	}
	return map[string]any{
		"traceId": fixtureTraceID, "startedAt": "2026-01-04T01:00:00Z", "endedAt": "2026-01-04T01:00:01Z", "durationMs": 1000,
		"truncated": false,
		"nodes": []map[string]any{
			{"id": "webhook:whk_1", "parentId": "", "kind": "webhook", "name": "stripe invoice.finalized", "status": "completed",
				"startedAt": "2026-01-04T01:00:00Z", "endedAt": "2026-01-04T01:00:00.012Z", "durationMs": 12, "offsetMs": 0, "ref": "whk_1",
				"detail": map[string]any{"provider": "stripe", "providerEventId": "evt_1"}},
			{"id": "event:evt-1", "parentId": "webhook:whk_1", "kind": "event", "name": "webhook.received",
				"startedAt": "2026-01-04T01:00:00.003Z", "offsetMs": 3, "ref": "evt-1",
				"detail": map[string]any{"eventType": "webhook.received", "aggregateId": "whk_1"}},
			wf,
			{"id": "step:wf-1:1", "parentId": "workflow:wf-1", "kind": "step", "name": "transform", "status": "completed",
				"startedAt": "2026-01-04T01:00:00.020Z", "endedAt": "2026-01-04T01:00:00.120Z", "durationMs": 100, "offsetMs": 20},
			{"id": "task:task-1", "parentId": "step:wf-1:1", "kind": "task", "name": "send_email", "status": "completed",
				"startedAt": "2026-01-04T01:00:00.200Z", "endedAt": "2026-01-04T01:00:00.300Z", "durationMs": 100, "offsetMs": 200, "ref": "task-1"},
			{"id": "delivery:out-1", "parentId": "workflow:wf-1", "kind": "delivery", "name": "acme", "status": "completed",
				"startedAt": "2026-01-04T01:00:00.400Z", "endedAt": "2026-01-04T01:00:00.800Z", "durationMs": 400, "offsetMs": 400, "ref": "out-1",
				"detail": map[string]any{"partnerId": "acme"}},
			{"id": "attempt:out-1:1", "parentId": "delivery:out-1", "kind": "attempt", "name": "HTTP 500", "status": "failed",
				"startedAt": "2026-01-04T01:00:00.400Z", "durationMs": 40, "offsetMs": 400,
				"detail": map[string]any{"statusCode": 500, "error": "acme answered 500 Internal Server Error", "spanId": "00f067aa0ba902b7"}},
			{"id": "attempt:out-1:2", "parentId": "delivery:out-1", "kind": "attempt", "name": "HTTP 200", "status": "completed",
				"startedAt": "2026-01-04T01:00:00.760Z", "durationMs": 40, "offsetMs": 760,
				"detail": map[string]any{"statusCode": 200, "spanId": "00f067aa0ba902b8"}},
			{"id": "deadletter:dl-1", "parentId": "workflow:wf-1", "kind": "deadletter", "name": "tasks undecodable", "status": "open",
				"startedAt": "2026-01-04T01:00:00.950Z", "offsetMs": 950, "ref": "dl-1", "detail": map[string]any{"topic": "tasks"}},
		},
	}
}

// fixtureAPI serves the console and, as /api, the contract's trace: the
// workflow is processing for the first two reads of the trace, then
// completed (so the page's polling shows the change); any other valid id
// is 404 and an invalid one 400, in the API's error shape.
func fixtureAPI(t *testing.T) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var reads atomic.Int32
	mux := http.NewServeMux()
	mux.Handle("/console/", console.Handler())
	mux.Handle("/console", console.Handler())
	write := func(w http.ResponseWriter, code int, v any) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		require.NoError(t, json.NewEncoder(w).Encode(v))
	}
	mux.HandleFunc("GET /api/me", func(w http.ResponseWriter, _ *http.Request) {
		write(w, http.StatusOK, map[string]any{"id": "admin", "role": "admin", "admin": true})
	})
	mux.HandleFunc("GET /api/events", func(w http.ResponseWriter, _ *http.Request) {
		write(w, http.StatusOK, map[string]any{"events": []any{}}) // the sign-in lands on the events page
	})
	mux.HandleFunc("GET /api/openapi.json", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(httpapi.OpenAPIDocument()) // the events page's filters
	})
	mux.HandleFunc("GET /api/traces/{id}", func(w http.ResponseWriter, r *http.Request) {
		id := r.PathValue("id")
		switch {
		case id == fixtureTraceID:
			status := "processing"
			if reads.Add(1) > 2 {
				status = "completed"
			}
			write(w, http.StatusOK, fixtureTrace(status))
		case len(id) == 32 && strings.Trim(id, "0123456789abcdef") == "":
			write(w, http.StatusNotFound, map[string]any{"error": map[string]any{"code": "not_found", "message": "no trace " + id}})
		default:
			write(w, http.StatusBadRequest, map[string]any{"error": map[string]any{"code": "invalid_trace_id", "message": "not a trace id", "field": "traceId"}})
		}
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv, &reads
}

// TestTracePageRendersTheContract opens the trace page on the contract's
// answer: one row per node in the answer's order, indented by depth, the
// bars placed on one time axis (events as points), attempts with their
// status code and error; clicking a row shows its detail and the link to
// the page of what it is; the page reads the trace again while a node is
// processing, and stops when none is. The search box takes a trace id or
// a traceparent and refuses anything else, saying why.
func TestTracePageRendersTheContract(t *testing.T) {
	srv, reads := fixtureAPI(t)
	b := newBrowser(t)
	tb := b.newTab(t)
	tb.signIn(t, srv.URL, adminToken, "admin")
	base := srv.URL + "/console"

	tb.open(t, base+"/traces/"+fixtureTraceID, `document.querySelectorAll('[data-testid=waterfall] .wf-row[data-id]').length === 9`, "nine rows")
	nodes := fixtureTrace("completed")["nodes"].([]map[string]any)
	var ids []string
	for _, n := range nodes {
		ids = append(ids, n["id"].(string))
	}
	assert.Equal(t, ids, eval[[]string](t, tb, `[...document.querySelectorAll('.wf-row[data-id]')].map(r => r.dataset.id)`), "the answer's order")
	assert.Equal(t, []string{"0", "1", "1", "2", "3", "2", "3", "3", "2"},
		eval[[]string](t, tb, `[...document.querySelectorAll('.wf-row[data-id]')].map(r => r.dataset.depth)`), "depth by parentId")

	// Polling: processing, then (third read) completed; then no more reads.
	tb.waitFor(t, `document.querySelector('.wf-row[data-id="workflow:wf-1"] .badge').textContent === 'completed' && `+
		`document.querySelector('[data-testid=trace]').dataset.live === 'false'`, "the workflow completed by polling")
	n := reads.Load()
	assert.GreaterOrEqual(t, n, int32(3))

	// Bars on a 1000 ms axis, as laid out: the delivery from 40% for 40%,
	// the webhook from 0 for 1.2%, the event and the dead letter points.
	for _, c := range []struct {
		id, sel     string
		left, width float64
	}{
		{"delivery:out-1", ".bar", 40, 40},
		{"webhook:whk_1", ".bar", 0, 1.2},
		{"step:wf-1:1", ".bar", 2, 10},
		{"event:evt-1", ".marker", 0.3, -1},
		{"deadletter:dl-1", ".marker", 95, -1},
	} {
		t.Run("bar "+c.id, func(t *testing.T) {
			box := eval[[]float64](t, tb, fmt.Sprintf(`(() => { const row = document.querySelector('.wf-row[data-id=%q]'); `+
				`const axis = row.querySelector('.wf-bar').getBoundingClientRect(), e = row.querySelector(%q).getBoundingClientRect(); `+
				`return [axis.left, axis.width, e.left, e.width]; })()`, c.id, c.sel))
			left, width := (box[2]-box[0])/box[1]*100, box[3]/box[1]*100
			if c.width < 0 { // a point: the marker's centre
				left += width / 2
			} else {
				assert.InDelta(t, c.width, width, 0.3, "width %%")
			}
			assert.InDelta(t, c.left, left, 0.3, "left %%")
		})
	}
	assert.Equal(t, []string{"HTTP 500", "HTTP 200"}, texts(t, tb, `[data-testid=attempt-status]`))
	contains(t, tb, "acme answered 500 Internal Server Error", "Invoice Sync", "send_email", "1.00 s")

	// Each row's detail and its link, by kind.
	for _, c := range []struct{ id, detail, href string }{
		{"webhook:whk_1", "evt_1", "/console/webhooks?provider=stripe&from=2026-01-04T00%3A59%3A00.000Z&to=2026-01-04T01%3A01%3A00.000Z&open=whk_1"},
		{"event:evt-1", "webhook.received", "/console/events?event_ids=evt-1"},
		{"workflow:wf-1", "normal", "/console/timeline/wf-1"},
		{"step:wf-1:1", "transform", "/console/timeline/wf-1"},
		{"task:task-1", "send_email", "/console/timeline/task-1"},
		{"delivery:out-1", "acme", "/console/partners/acme"},
		{"attempt:out-1:1", "00f067aa0ba902b7", "/console/partners/acme"},
		{"deadletter:dl-1", "tasks", "/console/dead-letters?status=all&topic=tasks&from=2026-01-04T00%3A59%3A00.950Z&to=2026-01-04T01%3A01%3A00.950Z&open=dl-1"},
	} {
		t.Run("detail "+c.id, func(t *testing.T) {
			tb.do(t, click(fmt.Sprintf(`.wf-row[data-id=%q]`, c.id)))
			tb.waitFor(t, fmt.Sprintf(`document.querySelector('[data-testid=node-detail]')?.dataset.id === %q`, c.id), "the row's detail")
			assert.Contains(t, texts(t, tb, `[data-testid=node-detail]`)[0], c.detail)
			assert.Equal(t, c.href, eval[string](t, tb, `document.querySelector('[data-testid=node-link]').getAttribute('href')`))
		})
	}
	tb.do(t, click(`.wf-row[data-id="attempt:out-1:1"]`))
	tb.screenshot(t, "trace-fixture")
	assert.Equal(t, n, reads.Load(), "no reading once nothing runs")
	tb.noConsoleErrors(t)

	// The search box in the top bar, with what a person may paste.
	for _, c := range []struct{ name, input, want, why string }{
		{"trace id", fixtureTraceID, fixtureTraceID, ""},
		{"upper case", strings.ToUpper(fixtureTraceID), fixtureTraceID, ""},
		{"traceparent", "00-" + fixtureTraceID + "-00f067aa0ba902b7-01", fixtureTraceID, ""},
		{"spaces around", "  " + fixtureTraceID + " ", fixtureTraceID, ""},
		{"empty", "", "", "Enter a trace id"},
		{"short", "4bf92f3577b3", "", "has 32 hex digits, this has 12"},
		{"not hex", "4bf92f3577b34da6a3ce929d0e0e473g", "", "hex digits (0-9, a-f) only"},
		{"all zero", strings.Repeat("0", 32), "", "all-zero"},
		{"bad traceparent", "00-" + fixtureTraceID + "-01", "", "Not a traceparent"},
		{"version ff", "ff-" + fixtureTraceID + "-00f067aa0ba902b7-01", "", "version ff"},
	} {
		t.Run("search "+c.name, func(t *testing.T) {
			tb.open(t, base+"/traces", `document.querySelector('header [data-testid=trace-search] input')`, "the top bar's search")
			tb.do(t, fill(`header [data-testid=trace-search] input`, c.input), submit(`header [data-testid=trace-search] input`))
			if c.why == "" {
				tb.waitFor(t, fmt.Sprintf(`location.pathname === %q && document.querySelectorAll('.wf-row[data-id]').length === 9`, "/console/traces/"+c.want), "the trace page")
				return
			}
			tb.waitFor(t, `document.querySelector('header [data-testid=trace-search-error]')`, "the reason")
			assert.Contains(t, texts(t, tb, `header [data-testid=trace-search-error]`)[0], c.why)
			assert.Equal(t, "/console/traces", eval[string](t, tb, `location.pathname`), "stays")
		})
	}
	tb.noConsoleErrors(t)

	// 404 and 400 from the API, each said in words.
	for _, c := range []struct{ id, status, why string }{
		{strings.Repeat("ab", 16), "404", "No trace with this id is stored"},
		{"not-a-trace", "400", "is not a trace id"},
	} {
		t.Run("answer "+c.status, func(t *testing.T) {
			tb.open(t, base+"/traces/"+c.id, `document.querySelector('[data-testid=trace-error]')`, "the error")
			assert.Equal(t, c.status, eval[string](t, tb, `document.querySelector('[data-testid=trace-error]').dataset.status`))
			contains(t, tb, c.why, c.status+" ")
			assert.Zero(t, count(t, tb, `[data-testid=waterfall]`))
			tb.noConsoleErrors(t, regexpStatus(c.status))
		})
	}
}

// regexpStatus matches the browser's log line of a status answered by
// GET /api/traces/{id} (a 4xx the page handles).
func regexpStatus(code string) *regexp.Regexp {
	return regexp.MustCompile(`status of ` + code + ` .*/api/traces/`)
}
