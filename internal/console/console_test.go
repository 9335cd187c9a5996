package console_test

import (
	"net/http"
	"net/http/httptest"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/internal/console"
)

func get(t *testing.T, method, target string, header ...string) *httptest.ResponseRecorder {
	t.Helper()
	r := httptest.NewRequest(method, target, nil)
	for i := 0; i+1 < len(header); i += 2 {
		r.Header.Set(header[i], header[i+1])
	}
	w := httptest.NewRecorder()
	console.Handler().ServeHTTP(w, r)
	return w
}

func TestEveryPagePathServesTheConsolePage(t *testing.T) {
	for _, target := range []string{
		"/console", "/console/events?event_types=workflow.failed&aggregate_id=wf-1",
		"/console/timeline/wf-00000000-0000-4000-8000-000000000001", "/console/dead-letters?status=open", "/console/partners/acme",
		"/console/traces", "/console/traces/4bf92f3577b34da6a3ce929d0e0e4736", "/console/subjects?subject=ranirmqxssbppz7sntbueq2lr4",
	} {
		t.Run(target, func(t *testing.T) {
			w := get(t, http.MethodGet, target)
			require.Equal(t, http.StatusOK, w.Code)
			assert.Equal(t, "text/html; charset=utf-8", w.Header().Get("Content-Type"))
			assert.Contains(t, w.Body.String(), `<script type="module" src="/console/assets/app.js">`)
			assert.Equal(t, "no-cache", w.Header().Get("Cache-Control"))
		})
	}
}

func TestThePageLoadsOnlyEmbeddedAssetsOfItsOwnOrigin(t *testing.T) {
	page := get(t, http.MethodGet, "/console").Body.String()
	refs := regexp.MustCompile(`(?:src|href)="([^"]+)"`).FindAllStringSubmatch(page, -1)
	require.NotEmpty(t, refs)
	for _, ref := range refs {
		if ref[1] == "data:," {
			continue // the empty favicon: no request at all
		}
		assert.Regexp(t, `^/console/assets/`, ref[1], "no CDN, no other origin")
		w := get(t, http.MethodGet, ref[1])
		assert.Equal(t, http.StatusOK, w.Code, ref[1])
		assert.NotEmpty(t, w.Body.Bytes(), ref[1])
	}
	csp := get(t, http.MethodGet, "/console").Header().Get("Content-Security-Policy")
	assert.Contains(t, csp, "script-src 'self'")
	assert.Contains(t, csp, "connect-src 'self'")
	assert.Contains(t, csp, "frame-ancestors 'none'")
}

func TestAssets(t *testing.T) {
	tests := []struct {
		target, contentType string
		status              int
	}{
		{"/console/assets/app.js", "text/javascript; charset=utf-8", http.StatusOK},
		{"/console/assets/app.css", "text/css; charset=utf-8", http.StatusOK},
		{"/console/assets/nope.js", "", http.StatusNotFound},
		{"/console/assets/../../api/events", "", http.StatusNotFound},
		{"/consoleX", "", http.StatusNotFound},
	}
	for _, tc := range tests {
		t.Run(tc.target, func(t *testing.T) {
			w := get(t, http.MethodGet, tc.target)
			require.Equal(t, tc.status, w.Code)
			if tc.status != http.StatusOK {
				return
			}
			assert.Equal(t, tc.contentType, w.Header().Get("Content-Type"))
			assert.Equal(t, "nosniff", w.Header().Get("X-Content-Type-Options"))
			etag := w.Header().Get("ETag")
			require.Regexp(t, `^"[0-9a-f]{16}"$`, etag)
			again := get(t, http.MethodGet, tc.target, "If-None-Match", etag)
			assert.Equal(t, http.StatusNotModified, again.Code, "a copy with the same ETag is still good")
			assert.Empty(t, again.Body.Bytes())
		})
	}
}

func TestTheConsoleOnlyReads(t *testing.T) {
	for _, m := range []string{http.MethodPost, http.MethodPut, http.MethodDelete} {
		w := get(t, m, "/console/dead-letters")
		assert.Equal(t, http.StatusMethodNotAllowed, w.Code, m)
		assert.Equal(t, "GET, HEAD", w.Header().Get("Allow"))
	}
	assert.Equal(t, http.StatusOK, get(t, http.MethodHead, "/console").Code)
}
