package httpapi_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/history"
	"github.com/streamops/streamops/internal/httpapi"
	"github.com/streamops/streamops/internal/provider"
	"github.com/streamops/streamops/internal/status"
	"github.com/streamops/streamops/internal/submit"
	"github.com/streamops/streamops/internal/testenv"
)

type apiStack struct {
	*testenv.Env
	handler http.Handler
	// replayer is the API's, when it has one: tests drive it as the
	// retry-sweeper does (awaitReplay).
	replayer *history.Replayer
}

func newAPIStack(t testing.TB) *apiStack {
	env := testenv.New(t, testenv.Options{})
	svc, err := submit.New(env.Store, env.Emitter, submit.Limits{}, nil, env.Logger)
	require.NoError(t, err)
	return &apiStack{Env: env, handler: apiHandler(env, svc)}
}

const adminToken = "admin-test-token"

// testPartners is the partners' configuration the API is given: acme's
// delivery URL carries credentials the API must not show, and it has a
// rate limit and an in-flight limit; delta is configured but unknown to
// the store.
var testPartners = map[string]httpapi.PartnerConfig{
	"acme": {ID: "acme", Name: "Acme Corp", URL: "https://svc:s3cret@hooks.acme.example/streamops?key=s3cret",
		Webhooks:  []httpapi.PartnerWebhook{{Provider: "acme", SignatureScheme: "hmac"}},
		RateLimit: ptr(2.5), MaxInFlight: ptr(4)},
	"delta": {ID: "delta", Name: "Delta", URL: "https://delta.example/in"},
}

func ptr[T any](v T) *T { return &v }

func apiHandler(env *testenv.Env, svc *submit.Service) http.Handler {
	return httpapi.API(httpapi.APIConfig{Submit: svc, Store: env.Store, Logger: env.Logger, Partners: testPartners,
		Auth: httpapi.TokenAuth{AdminToken: adminToken, PartnerTokens: map[string]string{"acme-token": "acme", "beta-token": "beta"},
			Tokens: map[string]httpapi.Principal{"alice-token": httpapi.AdminPrincipal("alice")}}})
}

func (s *apiStack) call(t testing.TB, method, path, body string, headers ...string) response {
	r := httptest.NewRequest(method, path, strings.NewReader(body))
	r.Header.Set("Authorization", "Bearer "+adminToken)
	for i := 0; i+1 < len(headers); i += 2 {
		r.Header.Set(headers[i], headers[i+1])
	}
	w := httptest.NewRecorder()
	s.handler.ServeHTTP(w, r)
	var out map[string]any
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &out), w.Body.String())
	return response{w.Code, out}
}

func TestSubmitWorkflowStoresPublishesAndShowsProgress(t *testing.T) {
	s := newAPIStack(t)
	resp := s.call(t, "POST", "/api/workflows",
		`{"name":"Data Processing Pipeline","steps":["validate","transform","store"],"priority":"high","input":{"records":[{"id":1}]}}`)
	require.Equal(t, http.StatusCreated, resp.status, resp.body)
	assert.Equal(t, "pending", resp.body["status"])
	id := resp.body["workflowId"].(string)
	assert.Regexp(t, `^wf-[0-9a-f-]{36}$`, id)

	published := s.Envelopes(t, events.TopicWorkflows)
	require.Len(t, published, 1)
	assert.Equal(t, resp.body["eventId"], published[0].EventID)
	assert.Equal(t, "api-gateway", published[0].Metadata.Source)
	assert.Equal(t, events.String("admin"), published[0].Metadata.UserID, "the principal of the token")
	p, err := events.PayloadAs[events.WorkflowCreatedPayload](published[0])
	require.NoError(t, err)
	assert.Equal(t, id, p.WorkflowID)
	assert.JSONEq(t, `{"records":[{"id":1}]}`, string(p.Input))

	got := s.call(t, "GET", "/api/workflows/"+id, "")
	require.Equal(t, http.StatusOK, got.status)
	assert.Equal(t, "pending", got.body["status"])
	assert.Equal(t, "admin", got.body["userId"], "the projection keeps it for the processors")
	progress := got.body["progress"].([]any)
	require.Len(t, progress, 3)
	assert.Equal(t, map[string]any{"name": "validate", "index": float64(0), "status": "pending"}, progress[0])
}

func TestSubmitTaskAndReadItBack(t *testing.T) {
	s := newAPIStack(t)
	resp := s.call(t, "POST", "/api/tasks", `{"type":"email_notification","data":{"template":"welcome_email"}}`)
	require.Equal(t, http.StatusCreated, resp.status, resp.body)
	id := resp.body["taskId"].(string)
	got := s.call(t, "GET", "/api/tasks/"+id, "")
	require.Equal(t, http.StatusOK, got.status)
	assert.Equal(t, "pending", got.body["status"])
	assert.Equal(t, float64(3), got.body["maxRetries"], "maxRetries defaults to 3")
	assert.Equal(t, float64(0), got.body["retryCount"])
	tasks := s.Envelopes(t, events.TopicTasks)
	require.Len(t, tasks, 1)
	assert.Equal(t, id, tasks[0].AggregateID())
}

func TestIdempotencyKeyReturnsTheFirstSubmission(t *testing.T) {
	s := newAPIStack(t)
	body := `{"name":"Nightly","steps":["validate"],"priority":"low"}`
	first := s.call(t, "POST", "/api/workflows", body, "Idempotency-Key", "req-42")
	require.Equal(t, http.StatusCreated, first.status)
	again := s.call(t, "POST", "/api/workflows", body, "Idempotency-Key", "req-42")
	assert.Equal(t, first, again, "a retried POST gets the first response")
	assert.Len(t, s.Records(t, events.TopicWorkflows), 1, "and creates nothing new")

	other := s.call(t, "POST", "/api/workflows", `{"name":"Other","steps":["validate"],"priority":"low"}`, "Idempotency-Key", "req-42")
	assert.Equal(t, http.StatusUnprocessableEntity, other.status)
	assert.Equal(t, "idempotency_key_reused", errorCode(other))
	byAlice := s.call(t, "POST", "/api/workflows", body, "Idempotency-Key", "req-42", "Authorization", "Bearer alice-token")
	assert.Equal(t, http.StatusUnprocessableEntity, byAlice.status, "the same key and body from another principal is not its request")
	assert.Equal(t, "idempotency_key_reused", errorCode(byAlice))

	task := s.call(t, "POST", "/api/tasks", `{"type":"data_export","data":{"format":"csv"}}`, "Idempotency-Key", "t-1")
	taskAgain := s.call(t, "POST", "/api/tasks", `{"type":"data_export","data":{"format":"csv"}}`, "Idempotency-Key", "t-1")
	assert.Equal(t, task, taskAgain)
}

func TestSubmissionErrorsNameTheField(t *testing.T) {
	s := newAPIStack(t)
	tests := []struct {
		name, method, path, body string
		status                   int
		code, field              string
	}{
		{"unknown step", "POST", "/api/workflows", `{"name":"x","steps":["validate","teleport"],"priority":"low"}`, 400, "validation_failed", "steps[1]"},
		{"bad priority", "POST", "/api/workflows", `{"name":"x","steps":["validate"],"priority":"urgent"}`, 400, "validation_failed", "priority"},
		{"missing name", "POST", "/api/workflows", `{"steps":["validate"],"priority":"low"}`, 400, "validation_failed", "name"},
		{"no steps", "POST", "/api/workflows", `{"name":"x","steps":[],"priority":"low"}`, 400, "validation_failed", "steps"},
		{"unknown task type", "POST", "/api/tasks", `{"type":"fax","data":{}}`, 400, "validation_failed", "type"},
		{"task without data", "POST", "/api/tasks", `{"type":"data_export"}`, 400, "validation_failed", "data"},
		{"negative retries", "POST", "/api/tasks", `{"type":"data_export","data":{},"maxRetries":-1}`, 400, "validation_failed", "maxRetries"},
		{"unknown field", "POST", "/api/tasks", `{"type":"data_export","data":{},"retries":2}`, 400, "invalid_payload", ""},
		{"not JSON", "POST", "/api/workflows", `{"name":`, 400, "invalid_payload", ""},
		{"unknown workflow", "GET", "/api/workflows/wf-nope", "", 404, "not_found", ""},
		{"unknown task", "GET", "/api/tasks/task-nope", "", 404, "not_found", ""},
		{"unknown route", "GET", "/api/nothing", "", 404, "route_not_found", ""},
		{"workflow input key with a NUL byte", "POST", "/api/workflows", `{"name":"x","steps":["validate"],"priority":"low","input":{"ok":{"a\u0000":1}}}`, 400, "unstorable_document", "input.ok.a\x00"},
		{"workflow input number no type holds exactly", "POST", "/api/workflows", `{"name":"x","steps":["validate"],"priority":"low","input":{"n":1e9999}}`, 400, "unstorable_document", "input.n"},
		{"repeated top-level key", "POST", "/api/workflows", `{"name":"x","steps":["validate"],"priority":"low","name":"y"}`, 400, "duplicate_key", "name"},
		{"repeated key in task data", "POST", "/api/tasks", `{"type":"data_export","data":{"f":{"a":1,"a":2}}}`, 400, "duplicate_key", "data.f.a"},
		{"task data key with a NUL byte", "POST", "/api/tasks", `{"type":"data_export","data":{"\u0000":1}}`, 400, "unstorable_document", "data.\x00"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp := s.call(t, tc.method, tc.path, tc.body)
			assert.Equal(t, tc.status, resp.status, resp.body)
			assert.Equal(t, tc.code, errorCode(resp))
			if tc.field != "" {
				assert.Equal(t, tc.field, resp.body["error"].(map[string]any)["field"])
				assert.Contains(t, resp.body["error"].(map[string]any)["message"], tc.field)
			}
		})
	}
	assert.Empty(t, s.Records(t, events.TopicWorkflows), "nothing published for rejected submissions")
}

func TestUnknownRoutesAreHiddenFromCallersWithoutAToken(t *testing.T) {
	s := newAPIStack(t)
	tests := []struct {
		name, method, path, token string
		status                    int
		code                      string
	}{
		{"unknown route, no token", "GET", "/api/admin/users", "", 401, "unauthenticated"},
		{"unknown route, unknown token", "GET", "/api/admin/users", "guess", 401, "unauthenticated"},
		{"wrong method, no token", "DELETE", "/api/workflows/wf-1", "", 401, "unauthenticated"},
		{"unknown route, admin", "GET", "/api/admin/users", adminToken, 404, "route_not_found"},
		{"unknown route, partner", "GET", "/api/admin/users", "acme-token", 404, "route_not_found"},
		{"wrong method, admin", "DELETE", "/api/workflows/wf-1", adminToken, 405, "method_not_allowed"},
		{"public document, no token", "GET", "/api/openapi.json", "", 200, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			auth := ""
			if tc.token != "" {
				auth = "Bearer " + tc.token
			}
			resp := s.call(t, tc.method, tc.path, "", "Authorization", auth)
			assert.Equal(t, tc.status, resp.status, resp.body)
			assert.Equal(t, tc.code, errorCode(resp))
		})
	}
}

// TestBrokerDownStillAcceptsAndLosesNothing: with the broker stopped,
// webhooks and submissions are answered 2xx, every accepted event is stored
// and stays marked unpublished for the retry-sweeper.
func TestBrokerDownStillAcceptsAndLosesNothing(t *testing.T) {
	env := testenv.New(t, testenv.Options{PublishTimeout: time.Second})
	reg, err := provider.LoadProviders("")
	require.NoError(t, err)
	ing, err := ingestService(env, reg)
	require.NoError(t, err)
	sub, err := submit.New(env.Store, env.Emitter, submit.Limits{}, nil, env.Logger)
	require.NoError(t, err)
	hooks := &webhookStack{Env: env, providers: reg, handler: httpapi.Webhooks(ing, env.Logger)}
	api := &apiStack{Env: env, handler: apiHandler(env, sub)}
	env.StopBroker()

	hook := hooks.do(t, hooks.signed(t, "stripe", testenv.Testdata(t, "webhooks/stripe-invoice-finalized.json"), "whsec_stripe_test", provider.SignOptions{}))
	assert.Equal(t, http.StatusAccepted, hook.status, hook.body)
	wf := api.call(t, "POST", "/api/workflows", `{"name":"x","steps":["validate"],"priority":"low"}`)
	assert.Equal(t, http.StatusCreated, wf.status, wf.body)
	task := api.call(t, "POST", "/api/tasks", `{"type":"data_export","data":{}}`)
	assert.Equal(t, http.StatusCreated, task.status, task.body)

	pending, err := env.Store.UnpublishedEvents(context.Background(), events.Now().Add(1e12), 100)
	require.NoError(t, err)
	var aggregates []string
	for _, d := range pending {
		aggregates = append(aggregates, d.AggregateID)
	}
	assert.Len(t, pending, 3, "the webhook's workflow.created and both submissions wait for the sweeper")
	assert.Contains(t, aggregates, wf.body["workflowId"])
	assert.Contains(t, aggregates, task.body["taskId"])
	whev, err := env.Store.GetWebhookEvent(context.Background(), hook.body["webhookEventId"].(string))
	require.NoError(t, err)
	assert.Equal(t, status.WebhookProcessing, whev.Status)
}
