package httpapi_test

import (
	"net/http/httptest"
	"strings"
	"testing"
)

// fuzzRoutes are the /api routes a fuzzed request is sent to.
var fuzzRoutes = []struct{ method, path string }{
	{"GET", "/api/events"}, {"GET", "/api/events/search"}, {"GET", "/api/events/export"},
	{"POST", "/api/replays"}, {"GET", "/api/webhook-events"}, {"GET", "/api/dead-letters"},
	{"POST", "/api/dead-letters/requeue"}, {"GET", "/api/stats"}, {"GET", "/api/partners/acme/events"},
	{"POST", "/api/workflows"}, {"POST", "/api/tasks"}, {"GET", "/api/workflows/wf-x"},
	{"GET", "/api/partners"}, {"GET", "/api/me"},
}

// FuzzAPIRoutesNeverAnswer5xx sends every /api route fuzzed query strings
// (seed 001's ReplayFilter parameters among them) and bodies, as the admin
// and as a partner, on the real store: whatever the input, the answer is a
// 2xx or a 4xx with a JSON error body, never a 5xx.
func FuzzAPIRoutesNeverAnswer5xx(f *testing.F) {
	s := newHistoryStackOf(f, 1000)
	for _, q := range []string{
		"event_types=workflow.created,task.created&start_time=2026-01-04T00:00:00Z&limit=5",
		"event_ids=&cursor=eyJ0IjoiMjAyNi0wMS0wNFQwMDowMDowMFoiLCJpZCI6IngifQ&limit=1000",
		"start_time=yesterday&end_time=%00&aggregate_id=%ff", "q=workflow.created&format=csv&window=1h",
		"exclude_event_types=a&user_id=" + strings.Repeat("u", 300) + "&status=all&limit=-1",
	} {
		f.Add(uint8(0), q, `{"filter":{"event_types":["task.created"]},"dryRun":true}`, false)
	}
	f.Add(uint8(9), "", `{"name":"x","steps":["validate"],"priority":"low","input":{"n":1e9999,"a\u0000":1}}`, true)
	f.Add(uint8(10), "", `{"type":"data_export","data":{"a":1,"a":2}}`, false)
	f.Fuzz(func(t *testing.T, route uint8, query, body string, partner bool) {
		rt := fuzzRoutes[int(route)%len(fuzzRoutes)]
		r := httptest.NewRequest(rt.method, "/", strings.NewReader(body))
		r.URL.Path, r.URL.RawQuery = rt.path, query
		token := adminToken
		if partner {
			token = "acme-token"
		}
		r.Header.Set("Authorization", "Bearer "+token)
		w := httptest.NewRecorder()
		s.handler.ServeHTTP(w, r)
		if w.Code >= 500 {
			t.Fatalf("%s %s?%s body %q: %d %s", rt.method, rt.path, query, body, w.Code, w.Body)
		}
		if w.Code >= 400 && !strings.HasPrefix(w.Body.String(), `{"error":`) {
			t.Fatalf("%s %s?%s: %d without a JSON error body: %s", rt.method, rt.path, query, w.Code, w.Body)
		}
	})
}
