package local

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambdacontext"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/internal/apigw"
	"github.com/streamops/streamops/internal/testenv"
)

var update = flag.Bool("update", false, "rewrite the testdata fixtures this package generates")

// capture is an HTTPFunction that records the event it was given.
type capture struct {
	mu   sync.Mutex
	last events.APIGatewayV2HTTPRequest
	ctx  context.Context
	resp events.APIGatewayV2HTTPResponse
}

func (c *capture) fn(ctx context.Context, req events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.last, c.ctx = req, ctx
	return c.resp, nil
}

func (c *capture) event() events.APIGatewayV2HTTPRequest {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.last
}

func newTestGateway(fns map[string]HTTPFunction) *Gateway {
	return NewGateway(nil,
		Route{Method: http.MethodPost, Path: "/webhooks/{provider}", Function: fns["webhook"], Name: FnWebhook, Timeout: time.Second},
		Route{Method: "ANY", Path: "/api/{proxy+}", Function: fns["api"], Name: FnAPI, Timeout: time.Second},
	)
}

func TestGatewayMatchesRoutesAsAPIGatewayDoes(t *testing.T) {
	hook, api := &capture{resp: events.APIGatewayV2HTTPResponse{StatusCode: 202}}, &capture{resp: events.APIGatewayV2HTTPResponse{StatusCode: 200}}
	g := newTestGateway(map[string]HTTPFunction{"webhook": hook.fn, "api": api.fn})
	tests := []struct {
		method, target string
		status         int
		routeKey       string
		params         map[string]string
	}{
		{"POST", "/webhooks/stripe", 202, "POST /webhooks/{provider}", map[string]string{"provider": "stripe"}},
		{"POST", "/webhooks/acme%2Deu", 202, "POST /webhooks/{provider}", map[string]string{"provider": "acme-eu"}},
		{"GET", "/webhooks/stripe", 404, "", nil},
		{"POST", "/webhooks/stripe/extra", 404, "", nil},
		{"POST", "/webhooks/", 404, "", nil},
		{"GET", "/api/events?limit=5", 200, "ANY /api/{proxy+}", map[string]string{"proxy": "events"}},
		{"POST", "/api/webhook-events/abc/retry", 200, "ANY /api/{proxy+}", map[string]string{"proxy": "webhook-events/abc/retry"}},
		{"DELETE", "/api/tasks/t-1", 200, "ANY /api/{proxy+}", map[string]string{"proxy": "tasks/t-1"}},
		{"GET", "/api", 404, "", nil},
		{"GET", "/api/", 404, "", nil},
		{"GET", "/", 404, "", nil},
	}
	for _, tc := range tests {
		t.Run(tc.method+" "+tc.target, func(t *testing.T) {
			w := httptest.NewRecorder()
			g.ServeHTTP(w, httptest.NewRequest(tc.method, tc.target, strings.NewReader("{}")))
			assert.Equal(t, tc.status, w.Code)
			if tc.status == 404 {
				assert.JSONEq(t, `{"message":"Not Found"}`, w.Body.String())
				return
			}
			got := hook.event()
			if tc.routeKey != "POST /webhooks/{provider}" {
				got = api.event()
			}
			assert.Equal(t, tc.routeKey, got.RouteKey)
			assert.Equal(t, tc.routeKey, got.RequestContext.RouteKey)
			assert.Equal(t, tc.params, got.PathParameters)
			assert.NotEmpty(t, w.Header().Get("Apigw-Requestid"))
		})
	}
}

// normalized blanks what differs per request (ids, times) so an event can
// be compared with a fixture.
func normalized(t *testing.T, req events.APIGatewayV2HTTPRequest) []byte {
	t.Helper()
	assert.Regexp(t, `^[A-Za-z0-9+/]{14}==$`, req.RequestContext.RequestID)
	assert.Regexp(t, `^Root=1-[0-9a-f]{8}-[0-9a-f]{24}$`, req.Headers["x-amzn-trace-id"])
	req.RequestContext.RequestID = "<requestId>"
	req.Headers["x-amzn-trace-id"] = "<traceId>"
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	require.NoError(t, enc.Encode(req))
	return []byte(b.String())
}

func TestGatewayBuildsTheAPIGatewayV2Event(t *testing.T) {
	body := testenv.Testdata(t, "webhooks/stripe-invoice-finalized.json")
	stripe := http.Header{
		"Content-Type":     {"application/json"},
		"User-Agent":       {"Stripe/1.0 (+https://stripe.com/docs/webhooks)"},
		"Stripe-Signature": {"t=1736899500,v1=5257a869e7ecebeda32affa62cdca3fa51cad7e77a0e56ff536d0ce8e108d8bd"},
		"X-Repeated":       {"one", "two"},
		"Cookie":           {"session=abc; theme=dark"},
	}
	client := http.Header{"User-Agent": {"curl/8.14.1"}, "Accept": {"*/*"}, "Authorization": {"Bearer lambda-test-admin-token"}}
	withType := func(h http.Header, ct string) http.Header {
		h = h.Clone()
		h.Set("Content-Type", ct)
		return h
	}
	tests := []struct {
		name, fixture, method, target string
		header                        http.Header
		body                          []byte
	}{
		{"json webhook", "webhooks-stripe.json", "POST", "/webhooks/stripe?attempt=1&attempt=2&note=a%20b", stripe, body},
		{"binary body", "api-binary-body.json", "PUT", "/api/objects/r%C3%A9port.bin", withType(client, "application/octet-stream"), []byte{0xff, 0x00, 0x10}},
		{"no body", "api-get-events.json", "GET", "/api/events?event_types=workflow.completed&limit=10", client, nil},
		// The event the Lambda runtime test (internal/local/e2e) hands the
		// real api binary.
		{"task submission", "api-post-task.json", "POST", "/api/tasks", withType(client, "application/json"),
			[]byte(`{"type":"report_generation","data":{"period":"2026-01"},"maxRetries":2}`)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := &capture{resp: events.APIGatewayV2HTTPResponse{StatusCode: 200}}
			g := newTestGateway(map[string]HTTPFunction{"webhook": c.fn, "api": c.fn})
			g.now = func() time.Time { return time.Date(2026, 1, 4, 1, 9, 27, 123e6, time.UTC) }
			r := httptest.NewRequest(tc.method, "http://127.0.0.1:8080"+tc.target, strings.NewReader(string(tc.body)))
			r.RemoteAddr = "127.0.0.1:53124"
			r.Header = tc.header.Clone()
			w := httptest.NewRecorder()
			g.ServeHTTP(w, r)
			require.Equal(t, 200, w.Code, w.Body.String())

			testenv.GoldenJSON(t, "apigw/"+tc.fixture, normalized(t, c.event()), *update)

			lc, ok := lambdacontext.FromContext(c.ctx)
			require.True(t, ok, "the invocation carries a lambdacontext")
			assert.Equal(t, functionARN(map[bool]string{true: FnWebhook, false: FnAPI}[strings.HasPrefix(tc.target, "/webhooks")]), lc.InvokedFunctionArn)
			deadline, ok := c.ctx.Deadline()
			require.True(t, ok, "the invocation has its timeout as deadline")
			assert.WithinDuration(t, time.Now().Add(time.Second), deadline, time.Second)
		})
	}
}

// TestGatewayAndApigwAreInverse sends requests through the gateway to
// apigw.Handler: the http.Handler behind it must see what the client sent,
// and the client what the handler wrote.
func TestGatewayAndApigwAreInverse(t *testing.T) {
	type seen struct {
		method, path, rawQuery, provider, body, header, cookie, remote string
	}
	var got seen
	mux := http.NewServeMux()
	handle := func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got = seen{r.Method, r.URL.Path, r.URL.RawQuery, r.PathValue("provider"), string(b),
			r.Header.Get("X-Custom"), r.Header.Get("Cookie"), r.RemoteAddr}
		w.Header().Set("Content-Type", r.Header.Get("Accept"))
		w.Header().Add("Set-Cookie", "a=1")
		w.Header().Add("Set-Cookie", "b=2")
		w.Header().Add("X-Multi", "x")
		w.WriteHeader(http.StatusCreated)
		_, _ = w.Write(b)
	}
	mux.HandleFunc("POST /webhooks/{provider}", handle)
	mux.HandleFunc("/api/", handle)
	fn := apigw.Handler(mux)
	srv := httptest.NewServer(newTestGateway(map[string]HTTPFunction{"webhook": fn, "api": fn}))
	defer srv.Close()

	tests := []struct {
		name, method, path, contentType string
		body                            []byte
		// textOut marks a text response that is not UTF-8: apigw sends a
		// text/* body as a JSON string, so Lambda (and the round trip
		// here) turns its bad bytes into U+FFFD.
		textOut bool
	}{
		{"json", "POST", "/webhooks/github?x=1&x=2", "application/json", []byte(`{"zen":"Keep it logically awesome."}`), false},
		{"binary", "POST", "/api/uploads/blob", "application/octet-stream", []byte{0, 1, 2, 0xfe, 0xff}, false},
		{"text not utf-8", "POST", "/api/uploads/latin1", "text/plain", []byte{'c', 'a', 'f', 0xe9}, true},
		{"escaped path", "GET", "/api/events/a%2Fb?q=caf%C3%A9", "", nil, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req, err := http.NewRequest(tc.method, srv.URL+tc.path, strings.NewReader(string(tc.body)))
			require.NoError(t, err)
			if tc.contentType != "" {
				req.Header.Set("Content-Type", tc.contentType)
				req.Header.Set("Accept", tc.contentType)
			}
			req.Header.Set("X-Custom", "kept")
			req.Header.Set("Cookie", "c=3; d=4")
			resp, err := srv.Client().Do(req)
			require.NoError(t, err)
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			assert.Equal(t, http.StatusCreated, resp.StatusCode)
			if tc.textOut {
				assert.Equal(t, "caf\uFFFD", string(b))
			} else {
				assert.Equal(t, string(tc.body), string(b), "the response body comes back byte for byte")
			}
			assert.Equal(t, []string{"a=1", "b=2"}, resp.Header.Values("Set-Cookie"))
			assert.Equal(t, "x", resp.Header.Get("X-Multi"))

			u := req.URL
			assert.Equal(t, tc.method, got.method)
			assert.Equal(t, u.Path, got.path)
			assert.Equal(t, u.RawQuery, got.rawQuery)
			assert.Equal(t, string(tc.body), got.body)
			assert.Equal(t, "kept", got.header)
			assert.Equal(t, "c=3; d=4", got.cookie)
			assert.Equal(t, "127.0.0.1", got.remote)
		})
	}
}

func TestGatewayAnswersLambdaFailuresAsAPIGatewayDoes(t *testing.T) {
	tests := []struct {
		name   string
		fn     HTTPFunction
		status int
		body   string
	}{
		{"error", func(context.Context, events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
			return events.APIGatewayV2HTTPResponse{}, errors.New("boom")
		}, 500, `{"message":"Internal Server Error"}`},
		{"panic", func(context.Context, events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
			panic("boom")
		}, 500, `{"message":"Internal Server Error"}`},
		{"timeout", func(ctx context.Context, _ events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
			time.Sleep(1500 * time.Millisecond) // past the route's 1 s timeout
			return events.APIGatewayV2HTTPResponse{StatusCode: 200}, nil
		}, 500, `{"message":"Internal Server Error"}`},
		{"bad base64 body", func(context.Context, events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
			return events.APIGatewayV2HTTPResponse{StatusCode: 200, Body: "%%%", IsBase64Encoded: true}, nil
		}, 500, `{"message":"Internal Server Error"}`},
		{"base64 body", func(context.Context, events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
			return events.APIGatewayV2HTTPResponse{StatusCode: 200, Body: base64.StdEncoding.EncodeToString([]byte(`{"ok":true}`)), IsBase64Encoded: true}, nil
		}, 200, `{"ok":true}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := newTestGateway(map[string]HTTPFunction{"api": tc.fn})
			w := httptest.NewRecorder()
			g.ServeHTTP(w, httptest.NewRequest("GET", "/api/x", nil))
			assert.Equal(t, tc.status, w.Code)
			assert.JSONEq(t, tc.body, w.Body.String())
			g.Wait()
		})
	}
}

func TestGatewayRefusesPayloadsLambdaWouldRefuse(t *testing.T) {
	called := false
	g := newTestGateway(map[string]HTTPFunction{"webhook": func(context.Context, events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
		called = true
		return events.APIGatewayV2HTTPResponse{StatusCode: 202}, nil
	}})
	w := httptest.NewRecorder()
	g.ServeHTTP(w, httptest.NewRequest("POST", "/webhooks/stripe", strings.NewReader(strings.Repeat("x", maxPayload+1))))
	assert.Equal(t, http.StatusRequestEntityTooLarge, w.Code)
	assert.False(t, called)
}
