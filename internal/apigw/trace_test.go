package apigw

import (
	"context"
	"net/http"
	"regexp"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/streamops/streamops/internal/tracing"
)

const (
	callerTrace  = "4bf92f3577b34da6a3ce929d0e0e4736"
	callerParent = "00f067aa0ba902b7"
	callerTP     = "00-" + callerTrace + "-" + callerParent + "-01"
	workTrace    = "0af7651916cd43dd8448eb211c80319c"
)

var traceresponse = regexp.MustCompile(`^00-([0-9a-f]{32})-([0-9a-f]{16})-0[01]$`)

// TestEveryAnswerNamesItsTrace: whatever the status, the answer carries
// X-Trace-Id and traceresponse of the SERVER span, which continues the
// caller's traceparent (any header case) or starts a trace, and the
// handler's request context holds that span.
func TestEveryAnswerNamesItsTrace(t *testing.T) {
	mux := http.NewServeMux()
	var seen string
	reply := func(status int) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			seen = tracing.TraceID(r.Context()) + "-" + tracing.SpanID(r.Context())
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			_, _ = w.Write([]byte(`{}`))
		}
	}
	mux.HandleFunc("POST /webhooks/{provider}", reply(http.StatusAccepted))
	mux.HandleFunc("GET /boom", reply(http.StatusServiceUnavailable))
	mux.HandleFunc("POST /rerun", func(w http.ResponseWriter, r *http.Request) {
		seen = tracing.TraceID(r.Context()) + "-" + tracing.SpanID(r.Context())
		w.Header().Set(TraceIDHeader, workTrace) // the work continues another trace
		w.WriteHeader(http.StatusAccepted)
	})
	request := func(method, path, routeKey string, headers map[string]string) events.APIGatewayV2HTTPRequest {
		return events.APIGatewayV2HTTPRequest{Version: "2.0", RouteKey: routeKey, RawPath: path, Headers: headers,
			RequestContext: events.APIGatewayV2HTTPRequestContext{RequestID: "req-1", HTTP: events.APIGatewayV2HTTPRequestContextHTTPDescription{
				Method: method, Path: path, SourceIP: "203.0.113.9", UserAgent: "Stripe/1.0"}}}
	}
	tests := []struct {
		name     string
		req      events.APIGatewayV2HTTPRequest
		status   int
		span     string
		route    string
		traceID  string // the caller's trace, "" for a new one
		answerID string // X-Trace-Id when the handler names another trace
		handled  bool
	}{
		{name: "202 continues the caller's traceparent",
			req:    request("POST", "/webhooks/stripe", "POST /webhooks/{provider}", map[string]string{"traceparent": callerTP, "tracestate": "vendor=1"}),
			status: 202, span: "POST /webhooks/{provider}", route: "/webhooks/{provider}", traceID: callerTrace, handled: true},
		{name: "header names in any case",
			req:    request("POST", "/webhooks/stripe", "POST /webhooks/{provider}", map[string]string{"TraceParent": callerTP}),
			status: 202, span: "POST /webhooks/{provider}", route: "/webhooks/{provider}", traceID: callerTrace, handled: true},
		{name: "202 without traceparent starts a trace",
			req:    request("POST", "/webhooks/stripe", "POST /webhooks/{provider}", nil),
			status: 202, span: "POST /webhooks/{provider}", route: "/webhooks/{provider}", handled: true},
		{name: "an invalid traceparent starts a trace",
			req:    request("POST", "/webhooks/stripe", "POST /webhooks/{provider}", map[string]string{"traceparent": "00-zz-11-01"}),
			status: 202, span: "POST /webhooks/{provider}", route: "/webhooks/{provider}", handled: true},
		{name: "404 of the handler",
			req:    request("GET", "/nope", "ANY /{proxy+}", map[string]string{"traceparent": callerTP}),
			status: 404, span: "GET /{proxy+}", route: "/{proxy+}", traceID: callerTrace},
		{name: "503 is the span's error",
			req:    request("GET", "/boom", "$default", nil),
			status: 503, span: "GET", handled: true},
		{name: "the adapter's own 400",
			req: func() events.APIGatewayV2HTTPRequest {
				r := request("POST", "/webhooks/stripe", "POST /webhooks/{provider}", map[string]string{"traceparent": callerTP})
				r.Body, r.IsBase64Encoded = "%%%", true
				return r
			}(),
			status: 400, span: "POST /webhooks/{provider}", route: "/webhooks/{provider}", traceID: callerTrace},
		{name: "a handler naming the trace of its work keeps its X-Trace-Id",
			req:    request("POST", "/rerun", "POST /rerun", map[string]string{"traceparent": callerTP}),
			status: 202, span: "POST /rerun", route: "/rerun", traceID: callerTrace, answerID: workTrace, handled: true},
	}
	for _, recording := range []bool{false, true} {
		exp := tracetest.NewInMemoryExporter()
		p, err := tracing.New(tracing.Config{Enabled: recording, SampleRatio: 1, Exporter: exp})
		require.NoError(t, err)
		h := Handler(mux)
		for _, tc := range tests {
			t.Run(map[bool]string{false: "off/", true: "recording/"}[recording]+tc.name, func(t *testing.T) {
				exp.Reset()
				seen = ""
				resp, err := h(tracing.WithProvider(context.Background(), p), tc.req)
				require.NoError(t, err)
				require.Equal(t, tc.status, resp.StatusCode)
				m := traceresponse.FindStringSubmatch(resp.Headers["traceresponse"])
				require.NotNil(t, m, "traceresponse %q", resp.Headers["traceresponse"])
				if tc.traceID != "" {
					assert.Equal(t, tc.traceID, m[1], "the caller's trace is continued")
				} else {
					assert.True(t, tracing.ValidTraceID(m[1]))
					assert.NotEqual(t, callerTrace, m[1])
				}
				want := m[1]
				if tc.answerID != "" {
					want = tc.answerID
				}
				assert.Equal(t, want, resp.Headers["x-trace-id"])
				if tc.handled {
					assert.Equal(t, m[1]+"-"+m[2], seen, "the handler's context holds the server span")
				}
				if recording {
					assert.NotEqual(t, callerParent, m[2], "a recorded server span is a new child span")
				}
				require.NoError(t, p.Flush(context.Background()))
				spans := exp.GetSpans()
				if !recording {
					assert.Empty(t, spans)
					return
				}
				require.Len(t, spans, 1)
				s := spans[0]
				assert.Equal(t, tc.span, s.Name)
				assert.Equal(t, trace.SpanKindServer, s.SpanKind)
				assert.Equal(t, m[2], s.SpanContext.SpanID().String())
				attrs := map[attribute.Key]attribute.Value{}
				for _, kv := range s.Attributes {
					attrs[kv.Key] = kv.Value
				}
				assert.Equal(t, tc.req.RequestContext.HTTP.Method, attrs["http.request.method"].AsString())
				assert.Equal(t, tc.req.RawPath, attrs["url.path"].AsString())
				assert.Equal(t, int64(tc.status), attrs["http.response.status_code"].AsInt64())
				assert.Equal(t, "Stripe/1.0", attrs["user_agent.original"].AsString())
				assert.Equal(t, "203.0.113.9", attrs["client.address"].AsString())
				assert.Equal(t, tc.route, attrs["http.route"].AsString())
				if tc.status >= 500 {
					assert.Equal(t, codes.Error, s.Status.Code)
				} else {
					assert.NotEqual(t, codes.Error, s.Status.Code)
				}
			})
		}
	}
}
