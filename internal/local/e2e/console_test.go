package e2e

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestConsoleIsServedByTheAPIFunctionBehindTheGateway: the console's routes
// reach the api function through the gateway as on AWS (GET only, no
// token), and its data stays behind the token on /api. The pages
// themselves are tested in a browser (internal/console/browser).
func TestConsoleIsServedByTheAPIFunctionBehindTheGateway(t *testing.T) {
	s := start(t, "", nil)
	for _, tc := range []struct {
		method, path string
		status       int
		contentType  string
	}{
		{"GET", "/console", http.StatusOK, "text/html; charset=utf-8"},
		{"GET", "/console/dead-letters", http.StatusOK, "text/html; charset=utf-8"},
		{"GET", "/console/assets/app.js", http.StatusOK, "text/javascript; charset=utf-8"},
		{"GET", "/console/assets/app.css", http.StatusOK, "text/css; charset=utf-8"},
		{"GET", "/console/assets/missing.js", http.StatusNotFound, ""},
		{"POST", "/console/dead-letters", http.StatusNotFound, ""}, // no such route: the gateway's 404
		{"GET", "/api/stats", http.StatusUnauthorized, ""},         // the data needs a token
	} {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			req, err := http.NewRequest(tc.method, s.URL()+tc.path, nil)
			require.NoError(t, err)
			resp, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			defer resp.Body.Close()
			assert.Equal(t, tc.status, resp.StatusCode)
			if tc.contentType != "" {
				assert.Equal(t, tc.contentType, resp.Header.Get("Content-Type"))
				assert.True(t, strings.Contains(resp.Header.Get("Content-Security-Policy"), "script-src 'self'"))
			}
		})
	}
}
