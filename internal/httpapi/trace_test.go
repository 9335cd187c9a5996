package httpapi_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	lambdaevents "github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/apigw"
	"github.com/streamops/streamops/internal/httpapi"
	"github.com/streamops/streamops/internal/ingest"
	"github.com/streamops/streamops/internal/provider"
	"github.com/streamops/streamops/internal/status"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/submit"
	"github.com/streamops/streamops/internal/testenv"
	"github.com/streamops/streamops/internal/tracing"
)

// traceProviders: acme routes to a workflow, a task, or nothing; a paid
// invoice without invoice.id cannot be routed (the row is stored failed);
// tiny accepts 64 bytes.
var traceProviders = []provider.Provider{
	{Name: "acme", Signature: provider.Signature{Scheme: provider.SchemeHMAC, Header: "X-Acme-Signature"},
		EventID: provider.Field{Path: "id"}, EventType: provider.Field{Path: "type"},
		Routes: []provider.Route{
			{Match: "order.created", Workflow: &provider.WorkflowTemplate{Name: "Order intake", Steps: []string{"validate", "store"}, Priority: "high"}},
			{Match: "invoice.ignored", Skip: true},
			{Match: "invoice.*", Task: &provider.TaskTemplate{Type: events.TaskDataExport, Data: map[string]string{"invoice": "invoice.id"}}},
		}},
	{Name: "tiny", Signature: provider.Signature{Scheme: provider.SchemeHMAC, Header: "X-Tiny-Signature"},
		EventID: provider.Field{Path: "id"}, EventType: provider.Field{Path: "type"}, MaxBodyBytes: 64},
}

type noSecrets struct{}

func (noSecrets) Secrets(context.Context, string) ([]string, error) {
	return nil, errors.New("unreachable")
}

// traceStack serves the webhook and the API through apigw.Handler, as
// Lambda and the local stack do.
type traceStack struct {
	*testenv.Env
	reg                *provider.Registry
	webhook, down, api func(context.Context, lambdaevents.APIGatewayV2HTTPRequest) (lambdaevents.APIGatewayV2HTTPResponse, error)
	requests           int
}

func newTraceStack(t *testing.T) *traceStack {
	reg, err := provider.NewRegistry(provider.Config{Providers: traceProviders})
	require.NoError(t, err)
	env := testenv.New(t, testenv.Options{})
	ing, err := ingest.New(ingest.Config{Providers: reg, Store: env.Store, Emitter: env.Emitter, Logger: env.Logger,
		Secrets: provider.EnvSecrets{Lookup: func(string) string { return "acme-secret" }}})
	require.NoError(t, err)
	down, err := ingest.New(ingest.Config{Providers: reg, Store: env.Store, Emitter: env.Emitter, Logger: env.Logger, Secrets: noSecrets{}})
	require.NoError(t, err)
	sub, err := submit.New(env.Store, env.Emitter, submit.Limits{}, nil, env.Logger)
	require.NoError(t, err)
	api := httpapi.API(httpapi.APIConfig{Submit: sub, Store: env.Store, Router: ing, Logger: env.Logger,
		Auth: httpapi.TokenAuth{AdminToken: adminToken}, RequestID: apigw.RequestID})
	return &traceStack{Env: env, reg: reg, webhook: apigw.Handler(httpapi.Webhooks(ing, env.Logger)),
		down: apigw.Handler(httpapi.Webhooks(down, env.Logger)), api: apigw.Handler(api)}
}

type gwAnswer struct {
	status  int
	headers map[string]string
	body    string
}

// serve sends one request through fn, API Gateway style (lowercase
// header names but for those the test spells otherwise).
func (s *traceStack) serve(t *testing.T, fn func(context.Context, lambdaevents.APIGatewayV2HTTPRequest) (lambdaevents.APIGatewayV2HTTPResponse, error),
	method, routeKey, path, body string, headers map[string]string) gwAnswer {
	t.Helper()
	s.requests++
	req := lambdaevents.APIGatewayV2HTTPRequest{Version: "2.0", RouteKey: routeKey, RawPath: path, Body: body, Headers: headers,
		RequestContext: lambdaevents.APIGatewayV2HTTPRequestContext{RequestID: fmt.Sprintf("gw-req-%d", s.requests),
			HTTP: lambdaevents.APIGatewayV2HTTPRequestContextHTTPDescription{Method: method, Path: path}}}
	resp, err := fn(context.Background(), req)
	require.NoError(t, err)
	return gwAnswer{resp.StatusCode, resp.Headers, resp.Body}
}

// deliver signs body as acme (or provider) would.
func (s *traceStack) deliver(t *testing.T, name, body, traceparent string) gwAnswer {
	h := map[string]string{"content-type": "application/json"}
	for k, v := range testenv.Sign(t, s.reg, name, []byte(body), "acme-secret", provider.SignOptions{}) {
		h[strings.ToLower(k)] = v[0]
	}
	if traceparent != "" {
		h["traceparent"] = traceparent
	}
	return s.serve(t, s.webhook, "POST", "POST /webhooks/{provider}", "/webhooks/"+name, body, h)
}

// call is an admin API request.
func (s *traceStack) call(t *testing.T, method, routeKey, path, body, traceparent string, extra ...string) gwAnswer {
	h := map[string]string{"authorization": "Bearer " + adminToken, "content-type": "application/json"}
	if traceparent != "" {
		h["traceparent"] = traceparent
	}
	for i := 0; i+1 < len(extra); i += 2 {
		h[extra[i]] = extra[i+1]
	}
	return s.serve(t, s.api, method, routeKey, path, body, h)
}

// events is every stored event, by type.
func (s *traceStack) events(t *testing.T) map[string][]store.EventDocument {
	t.Helper()
	docs, _, err := s.Store.FindEvents(context.Background(), store.ReplayFilter{}, nil, 100)
	require.NoError(t, err)
	out := map[string][]store.EventDocument{}
	for _, d := range docs {
		out[d.EventType] = append(out[d.EventType], d)
	}
	return out
}

func traceparentOf(traceID string) string { return "00-" + traceID + "-00f067aa0ba902b7-01" }

// requireTraced checks a's trace headers and returns its X-Trace-Id.
func requireTraced(t *testing.T, a gwAnswer) string {
	t.Helper()
	id := a.headers["x-trace-id"]
	require.True(t, tracing.ValidTraceID(id), "X-Trace-Id %q on %d %s", id, a.status, a.body)
	require.Regexp(t, `^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$`, a.headers["traceresponse"])
	return id
}

const (
	firstTrace  = "4bf92f3577b34da6a3ce929d0e0e4736"
	secondTrace = "0af7651916cd43dd8448eb211c80319c"
)

// TestEveryEntryPathCarriesItsTrace is the table of the entry paths: each
// case's events all carry the trace the work belongs to (the caller's, or
// a new one without traceparent; the first one's for a redelivery, a
// repeated submission, a rerun and a webhook retry), what it stores
// carries it too, and the answer names it.
func TestEveryEntryPathCarriesItsTrace(t *testing.T) {
	order := `{"id":"evt_1","type":"order.created","order":{"id":"o-1"}}`
	tests := []struct {
		name string
		// run drives the path with traceparent tp (empty: none) and
		// returns the answer and the trace the work must be in ("": the
		// answer's own).
		run func(t *testing.T, s *traceStack, tp string) (gwAnswer, string)
		// want are the event types stored, each once.
		want []string
	}{
		{"webhook routed to a workflow", func(t *testing.T, s *traceStack, tp string) (gwAnswer, string) {
			a := s.deliver(t, "acme", order, tp)
			require.Equal(t, http.StatusAccepted, a.status, a.body)
			return a, ""
		}, []string{"webhook.received", "workflow.created"}},
		{"webhook routed to a task", func(t *testing.T, s *traceStack, tp string) (gwAnswer, string) {
			a := s.deliver(t, "acme", `{"id":"evt_2","type":"invoice.paid","invoice":{"id":"in-1"}}`, tp)
			require.Equal(t, http.StatusAccepted, a.status, a.body)
			return a, ""
		}, []string{"webhook.received", "task.created"}},
		{"webhook skipped", func(t *testing.T, s *traceStack, tp string) (gwAnswer, string) {
			a := s.deliver(t, "acme", `{"id":"evt_3","type":"invoice.ignored"}`, tp)
			require.Equal(t, http.StatusAccepted, a.status, a.body)
			return a, ""
		}, []string{"webhook.received"}},
		{"webhook stored failed", func(t *testing.T, s *traceStack, tp string) (gwAnswer, string) {
			a := s.deliver(t, "acme", `{"id":"evt_4","type":"invoice.paid"}`, tp)
			require.Equal(t, http.StatusAccepted, a.status, a.body)
			return a, ""
		}, nil},
		{"webhook redelivered keeps the first trace", func(t *testing.T, s *traceStack, tp string) (gwAnswer, string) {
			first := s.deliver(t, "acme", order, tp)
			require.Equal(t, http.StatusAccepted, first.status, first.body)
			again := s.deliver(t, "acme", order, traceparentOf(secondTrace))
			require.Equal(t, http.StatusOK, again.status, again.body)
			assert.Regexp(t, "^00-"+secondTrace+"-", again.headers["traceresponse"], "traceresponse names the span that served the request")
			return again, requireTraced(t, first)
		}, []string{"webhook.received", "workflow.created"}},
		{"webhook's new attempt by an operator continues the row's trace", func(t *testing.T, s *traceStack, tp string) (gwAnswer, string) {
			first := s.deliver(t, "acme", `{"id":"evt_5","type":"invoice.ignored"}`, tp)
			require.Equal(t, http.StatusAccepted, first.status, first.body)
			row, err := s.Store.GetWebhookEvent(context.Background(), store.WebhookEventID("acme", "evt_5"))
			require.NoError(t, err)
			a := s.call(t, "POST", "POST /api/webhook-events/{id}/retry", "/api/webhook-events/"+row.EventID+"/retry",
				`{"newAttempt":true,"reason":"a route for it was added"}`, traceparentOf(secondTrace))
			require.Equal(t, http.StatusAccepted, a.status, a.body)
			return a, requireTraced(t, first)
		}, []string{"webhook.received"}},
		{"API workflow", func(t *testing.T, s *traceStack, tp string) (gwAnswer, string) {
			a := s.call(t, "POST", "POST /api/workflows", "/api/workflows", `{"name":"n","steps":["validate"],"priority":"low"}`, tp)
			require.Equal(t, http.StatusCreated, a.status, a.body)
			return a, ""
		}, []string{"workflow.created"}},
		{"API task", func(t *testing.T, s *traceStack, tp string) (gwAnswer, string) {
			a := s.call(t, "POST", "POST /api/tasks", "/api/tasks", `{"type":"email_notification","data":{"recipient":"a@example.com"}}`, tp)
			require.Equal(t, http.StatusCreated, a.status, a.body)
			return a, ""
		}, []string{"task.created"}},
		{"API submission repeated with its Idempotency-Key", func(t *testing.T, s *traceStack, tp string) (gwAnswer, string) {
			body := `{"type":"email_notification","data":{"recipient":"a@example.com"}}`
			first := s.call(t, "POST", "POST /api/tasks", "/api/tasks", body, tp, "idempotency-key", "k-1")
			require.Equal(t, http.StatusCreated, first.status, first.body)
			again := s.call(t, "POST", "POST /api/tasks", "/api/tasks", body, traceparentOf(secondTrace), "idempotency-key", "k-1")
			require.Equal(t, http.StatusCreated, again.status, again.body)
			return again, requireTraced(t, first)
		}, []string{"task.created"}},
		{"rerun continues the workflow's trace", func(t *testing.T, s *traceStack, tp string) (gwAnswer, string) {
			first := s.call(t, "POST", "POST /api/workflows", "/api/workflows", `{"name":"n","steps":["validate","store"],"priority":"low"}`, tp)
			require.Equal(t, http.StatusCreated, first.status, first.body)
			id := strings.Split(strings.Split(first.body, `"workflowId":"`)[1], `"`)[0]
			now := time.Now().UTC()
			_, err := s.Store.SaveWorkflowCheckpoints(context.Background(), store.WorkflowCheckpoint{Workflow: store.Workflow{
				WorkflowID: id, Status: status.WorkflowFailed, StartedAt: &now, CompletedAt: &now,
				Error: &events.WorkflowError{Code: "VALIDATION_ERROR", Message: "bad", Stack: "x"}}})
			require.NoError(t, err)
			a := s.call(t, "POST", "POST /api/workflows/{id}/rerun", "/api/workflows/"+id+"/rerun", "", traceparentOf(secondTrace))
			require.Equal(t, http.StatusAccepted, a.status, a.body)
			assert.Regexp(t, "^00-"+secondTrace+"-", a.headers["traceresponse"], "traceresponse names the span that served the request")
			return a, requireTraced(t, first)
		}, []string{"workflow.created", "workflow.created"}},
	}
	for _, tc := range tests {
		for _, caller := range []string{"", firstTrace} {
			name := tc.name + map[string]string{"": "/new trace", firstTrace: "/caller's trace"}[caller]
			t.Run(name, func(t *testing.T) {
				s := newTraceStack(t)
				tp := ""
				if caller != "" {
					tp = traceparentOf(caller)
				}
				a, work := tc.run(t, s, tp)
				answered := requireTraced(t, a)
				if work == "" {
					work = answered
				}
				if caller != "" {
					assert.Equal(t, caller, work, "the caller's trace is continued")
				}
				assert.Equal(t, work, answered, "X-Trace-Id names the work's trace")
				got := s.events(t)
				n := 0
				for typ, docs := range got {
					for _, d := range docs {
						n++
						assert.Equal(t, work, d.Metadata.TraceID, "%s %s", typ, d.EventID)
					}
				}
				assert.Len(t, tc.want, n, "events stored: %v", got)
				for _, typ := range tc.want {
					assert.NotEmpty(t, got[typ], typ)
				}
				requireStoredIn(t, s, work)
			})
		}
	}
}

// requireStoredIn checks every webhook row, workflow and task stored
// carries traceID.
func requireStoredIn(t *testing.T, s *traceStack, traceID string) {
	t.Helper()
	ctx := context.Background()
	rows, _, err := s.Store.FindWebhookEvents(ctx, store.WebhookEventFilter{}, nil, 100)
	require.NoError(t, err)
	for _, row := range rows {
		assert.Equal(t, traceID, row.TraceID, "webhook row %s", row.EventID)
	}
	for typ, docs := range s.events(t) {
		for _, d := range docs {
			switch typ {
			case "workflow.created":
				wf, err := s.Store.GetWorkflow(ctx, d.AggregateID)
				require.NoError(t, err)
				assert.Equal(t, traceID, wf.TraceID)
				assert.Equal(t, d.Metadata.CorrelationID, wf.CorrelationID)
				assert.NotEmpty(t, wf.CorrelationID)
			case "task.created":
				task, err := s.Store.GetTask(ctx, d.AggregateID)
				require.NoError(t, err)
				assert.Equal(t, traceID, task.TraceID)
				assert.Equal(t, d.Metadata.CorrelationID, task.CorrelationID)
				assert.NotEmpty(t, task.CorrelationID)
			}
		}
	}
}

// TestAPICorrelationID: the caller's X-Correlation-Id when it is 1–128
// visible ASCII characters, else API Gateway's request id (a bad header
// is replaced, not refused); echoed on every answer and carried by the
// work submitted.
func TestAPICorrelationID(t *testing.T) {
	tests := []struct {
		name, header string
		own          bool
	}{
		{"the caller's", "order-123/retry#2", true},
		{"128 characters", strings.Repeat("c", 128), true},
		{"none", "", false},
		{"too long", strings.Repeat("c", 129), false},
		{"a space", "two words", false},
		{"not ASCII", "café", false},
	}
	s := newTraceStack(t)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var extra []string
			if tc.header != "" {
				extra = []string{"X-Correlation-Id", tc.header}
			}
			a := s.call(t, "POST", "POST /api/tasks", "/api/tasks", `{"type":"email_notification","data":{"recipient":"a@example.com"}}`, "", extra...)
			require.Equal(t, http.StatusCreated, a.status, a.body)
			want := fmt.Sprintf("gw-req-%d", s.requests)
			if tc.own {
				want = tc.header
			}
			assert.Equal(t, want, a.headers["x-correlation-id"])
			id := strings.Split(strings.Split(a.body, `"taskId":"`)[1], `"`)[0]
			task, err := s.Store.GetTask(context.Background(), id)
			require.NoError(t, err)
			assert.Equal(t, want, task.CorrelationID)
			refused := s.call(t, "GET", "ANY /api/{proxy+}", "/api/nope", "", "", extra...)
			assert.Equal(t, http.StatusNotFound, refused.status)
			assert.NotEmpty(t, refused.headers["x-correlation-id"], "echoed on errors too")
		})
	}
}

// TestEveryAnswerStatusNamesItsTrace: the answers the webhook and the API
// give, errors included, carry X-Trace-Id and traceresponse, continuing
// the caller's trace.
func TestEveryAnswerStatusNamesItsTrace(t *testing.T) {
	s := newTraceStack(t)
	tp := traceparentOf(firstTrace)
	tests := []struct {
		name   string
		status int
		do     func() gwAnswer
	}{
		{"202 accepted", http.StatusAccepted, func() gwAnswer { return s.deliver(t, "acme", `{"id":"evt_9","type":"order.created"}`, tp) }},
		{"200 duplicate", http.StatusOK, func() gwAnswer { return s.deliver(t, "acme", `{"id":"evt_9","type":"order.created"}`, tp) }},
		{"400 bad body", http.StatusBadRequest, func() gwAnswer {
			return s.call(t, "POST", "POST /api/workflows", "/api/workflows", `{"name":`, tp)
		}},
		{"401 no token", http.StatusUnauthorized, func() gwAnswer {
			return s.serve(t, s.api, "GET", "GET /api/stats", "/api/stats", "", map[string]string{"traceparent": tp})
		}},
		{"401 bad signature", http.StatusUnauthorized, func() gwAnswer {
			return s.serve(t, s.webhook, "POST", "POST /webhooks/{provider}", "/webhooks/acme", `{"id":"x","type":"order.created"}`,
				map[string]string{"traceparent": tp, "x-acme-signature": "nope"})
		}},
		{"404 unknown provider", http.StatusNotFound, func() gwAnswer {
			return s.serve(t, s.webhook, "POST", "POST /webhooks/{provider}", "/webhooks/nobody", `{}`, map[string]string{"traceparent": tp})
		}},
		{"413 too large", http.StatusRequestEntityTooLarge, func() gwAnswer {
			return s.deliver(t, "tiny", `{"id":"evt_big","type":"x","pad":"`+strings.Repeat("x", 100)+`"}`, tp)
		}},
		{"503 secrets unavailable", http.StatusServiceUnavailable, func() gwAnswer {
			return s.serve(t, s.down, "POST", "POST /webhooks/{provider}", "/webhooks/acme", `{}`, map[string]string{"traceparent": tp})
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := tc.do()
			require.Equal(t, tc.status, a.status, a.body)
			assert.Equal(t, firstTrace, requireTraced(t, a))
			assert.Regexp(t, "^00-"+firstTrace+"-", a.headers["traceresponse"])
		})
	}
}
