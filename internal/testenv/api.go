package testenv

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/internal/provider"
)

// API is a client of a running stack's HTTP routes, as a user's curl is.
type API struct {
	// URL is the stack's base URL (http://127.0.0.1:port).
	URL string
	// Token is the bearer token sent to the /api/ routes when a request
	// sets no Authorization of its own.
	Token string
}

// Do sends a request (a JSON body unless header names another
// Content-Type) and returns the status and the body of the answer.
func (a API) Do(method, path string, body []byte, header http.Header) (int, []byte, error) {
	req, err := http.NewRequest(method, a.URL+path, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	if req.Header.Get("Authorization") == "" && strings.HasPrefix(path, "/api/") {
		req.Header.Set("Authorization", "Bearer "+a.Token)
	}
	if body != nil && req.Header.Get("Content-Type") == "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, err
}

// Call is Do that fails the test on a transport error and decodes a JSON
// answer into out (when not nil); it returns the status.
func (a API) Call(tb testing.TB, method, path string, body []byte, header http.Header, out any) int {
	tb.Helper()
	status, b, err := a.Do(method, path, body, header)
	require.NoError(tb, err)
	if out != nil && len(b) > 0 {
		require.NoError(tb, json.Unmarshal(b, out), "%s %s answered %d %s", method, path, status, b)
	}
	return status
}

// Eventually polls cond every 20 ms for up to d, and fails the test with
// msg (formatted with args after d) if it never holds.
func Eventually(tb testing.TB, d time.Duration, cond func() bool, msg string, args ...any) {
	tb.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			tb.Fatalf("after %s: "+msg, append([]any{d}, args...)...)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Sign is the signature headers of body as reg's provider name signs it
// with secret.
func Sign(tb testing.TB, reg *provider.Registry, name string, body []byte, secret string, opts provider.SignOptions) http.Header {
	tb.Helper()
	p, ok := reg.Provider(name)
	require.True(tb, ok, "no provider %s", name)
	h, err := p.Sign(body, secret, opts)
	require.NoError(tb, err)
	return h
}
