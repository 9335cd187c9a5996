package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/httpapi"
	"github.com/streamops/streamops/internal/ingest"
	"github.com/streamops/streamops/internal/provider"
	"github.com/streamops/streamops/internal/status"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/testenv"
)

var secrets = map[string]string{
	"WEBHOOK_SECRET_STRIPE":   "whsec_stripe_old, whsec_stripe_test",
	"WEBHOOK_SECRET_GITHUB":   "gh-secret",
	"WEBHOOK_SECRET_STANDARD": "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
	"WEBHOOK_SECRET_ACME":     "acme-secret",
}

type webhookStack struct {
	*testenv.Env
	providers *provider.Registry
	handler   http.Handler
}

func newWebhookStack(t testing.TB) *webhookStack {
	reg, err := provider.LoadProviders("")
	require.NoError(t, err)
	return newWebhookStackWith(t, reg)
}

// newWebhookStackWith serves the providers of reg.
func newWebhookStackWith(t testing.TB, reg *provider.Registry) *webhookStack {
	env := testenv.New(t, testenv.Options{})
	svc, err := ingestService(env, reg)
	require.NoError(t, err)
	return &webhookStack{Env: env, providers: reg, handler: httpapi.Webhooks(svc, env.Logger)}
}

func ingestService(env *testenv.Env, reg *provider.Registry) (*ingest.Service, error) {
	return ingest.New(ingest.Config{
		Providers: reg, Secrets: provider.EnvSecrets{Lookup: func(k string) string { return secrets[k] }},
		Store: env.Store, Emitter: env.Emitter, Logger: env.Logger,
	})
}

// signed builds a delivery signed as the provider would sign it.
func (s *webhookStack) signed(t testing.TB, provider string, body []byte, secret string, opts provider.SignOptions) *http.Request {
	return signedDelivery(t, s.providers, provider, body, secret, opts)
}

// signedDelivery is a JSON delivery to POST /webhooks/{name}, signed as
// reg's provider name would sign it.
func signedDelivery(t testing.TB, reg *provider.Registry, name string, body []byte, secret string, opts provider.SignOptions) *http.Request {
	h := testenv.Sign(t, reg, name, body, secret, opts)
	r := httptest.NewRequest(http.MethodPost, "/webhooks/"+name, bytes.NewReader(body))
	for k, v := range h {
		r.Header[k] = v
	}
	r.Header.Set("Content-Type", "application/json")
	return r
}

type response struct {
	status int
	body   map[string]any
}

func (s *webhookStack) do(t testing.TB, r *http.Request) response {
	w := httptest.NewRecorder()
	s.handler.ServeHTTP(w, r)
	var body map[string]any
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &body), "every answer is JSON: %s", w.Body.String())
	assert.Equal(t, "application/json", w.Header().Get("Content-Type"))
	return response{w.Code, body}
}

func errorCode(r response) string {
	e, _ := r.body["error"].(map[string]any)
	code, _ := e["code"].(string)
	return code
}

func TestWebhookRoutedToAWorkflowIsStoredThenPublished(t *testing.T) {
	s := newWebhookStack(t)
	body := testenv.Testdata(t, "webhooks/stripe-invoice-finalized.json")
	resp := s.do(t, s.signed(t, "stripe", body, "whsec_stripe_test", provider.SignOptions{}))
	require.Equal(t, http.StatusAccepted, resp.status, resp.body)
	assert.Equal(t, "accepted", resp.body["status"])
	whID := resp.body["webhookEventId"].(string)

	var stripeEvent struct{ ID, Type string }
	require.NoError(t, json.Unmarshal(body, &stripeEvent))
	assert.Equal(t, store.WebhookEventID("stripe", stripeEvent.ID), whID)
	wev, err := s.Store.GetWebhookEvent(context.Background(), whID)
	require.NoError(t, err)
	assert.Equal(t, status.WebhookProcessing, wev.Status)
	assert.Equal(t, stripeEvent.Type, wev.EventType)

	published := s.Envelopes(t, events.TopicWorkflows)
	require.Len(t, published, 1)
	created := published[0]
	assert.Equal(t, events.WorkflowCreated, created.EventType)
	assert.Equal(t, "webhook", created.Metadata.Source)
	assert.Equal(t, whID, created.Metadata.CorrelationID)
	wf, err := events.PayloadAs[events.WorkflowCreatedPayload](created)
	require.NoError(t, err)
	assert.Equal(t, "Invoice Sync", wf.Name)
	assert.Equal(t, []string{"validate", "transform", "store"}, wf.Steps)

	stored, err := s.Store.GetWorkflow(context.Background(), wf.WorkflowID)
	require.NoError(t, err)
	assert.Equal(t, status.WorkflowPending, stored.Status)
	doc, err := s.Store.GetEvent(context.Background(), created.EventID)
	require.NoError(t, err)
	assert.False(t, doc.PublishPending, "the published event is marked published")
	history, err := s.Store.GetEvent(context.Background(), events.DeriveID(events.EventIDPrefix, whID, "webhook.received"))
	require.NoError(t, err, "webhook.received is in the history")
	assert.Equal(t, whID, history.AggregateID)
}

func TestWebhookDuplicateDeliveryIsAcknowledgedOnce(t *testing.T) {
	s := newWebhookStack(t)
	body := testenv.Testdata(t, "webhooks/stripe-invoice-finalized.json")
	first := s.do(t, s.signed(t, "stripe", body, "whsec_stripe_test", provider.SignOptions{}))
	require.Equal(t, http.StatusAccepted, first.status)
	again := s.do(t, s.signed(t, "stripe", body, "whsec_stripe_old", provider.SignOptions{}))
	assert.Equal(t, http.StatusOK, again.status)
	assert.Equal(t, map[string]any{"status": "duplicate", "webhookEventId": first.body["webhookEventId"]}, again.body)
	assert.Len(t, s.Records(t, events.TopicWorkflows), 1, "the duplicate published nothing")
}

func TestWebhookUnroutedEventIsSkippedAndPartnerDeliveryRecorded(t *testing.T) {
	s := newWebhookStack(t)
	std := s.do(t, s.signed(t, "standard", testenv.Testdata(t, "webhooks/standard-event.json"), secrets["WEBHOOK_SECRET_STANDARD"],
		provider.SignOptions{ID: "msg_2KWPBgLlAfxdpx2AI54pPJ85f4W"}))
	require.Equal(t, http.StatusAccepted, std.status, std.body)
	wev, err := s.Store.GetWebhookEvent(context.Background(), std.body["webhookEventId"].(string))
	require.NoError(t, err)
	assert.Equal(t, status.WebhookSkipped, wev.Status, "no route: stored and skipped")

	acme := s.do(t, s.signed(t, "acme", testenv.Testdata(t, "webhooks/acme-order.json"), "acme-secret", provider.SignOptions{}))
	require.Equal(t, http.StatusAccepted, acme.status, acme.body)
	history, err := s.Store.PartnerHistory(context.Background(), "acme")
	require.NoError(t, err)
	require.Len(t, history, 1)
	pe := history[0]
	assert.Equal(t, status.DirectionIn, pe.EventDirection)
	assert.Equal(t, "order-12345", pe.EntityMetadata.EntityID)
	assert.Equal(t, "Order", pe.EntityMetadata.EntityType)
	assert.Equal(t, "OR_MGMT", pe.EventType)
	assert.NotContains(t, string(pe.EntityData), "grace.hopper@example.com", "partner entity_data is scrubbed too")
	assert.Len(t, s.Records(t, events.TopicWorkflows), 1, "OR_* routes to Partner Order Sync")
}

func TestWebhookPayloadIsStoredWithoutPII(t *testing.T) {
	s := newWebhookStack(t)
	body := testenv.Testdata(t, "webhooks/stripe-customer-created.json")
	resp := s.do(t, s.signed(t, "stripe", body, "whsec_stripe_test", provider.SignOptions{}))
	require.Equal(t, http.StatusAccepted, resp.status, resp.body)
	wev, err := s.Store.GetWebhookEvent(context.Background(), resp.body["webhookEventId"].(string))
	require.NoError(t, err)
	for _, pii := range []string{"jenny.rosen@example.com", "Jenny Rosen", "+14155550123", "510 Townsend St"} {
		if bytes.Contains(body, []byte(pii)) {
			assert.NotContains(t, string(wev.Payload), pii)
		}
	}
	assert.Contains(t, string(wev.Payload), provider.Redacted)
	workflows := s.Envelopes(t, events.TopicWorkflows)
	require.Len(t, workflows, 1, "customer.created routes to the Customer Sync workflow")
	var created events.WorkflowCreatedPayload
	require.NoError(t, json.Unmarshal(workflows[0].Payload, &created))
	assert.Equal(t, "Customer Sync", created.Name)
	assert.Contains(t, string(created.Input), "cus_RXy7kQm2Lp9VbN", "the workflow's input is the stored payload")
	for _, pii := range []string{"jenny.rosen@example.com", "Jenny Rosen", "+14155550123"} {
		assert.NotContains(t, string(workflows[0].Payload), pii)
	}
}

func TestWebhookRoutedToATaskTakesItsDataFromTheRedactedPayload(t *testing.T) {
	path := filepath.Join(t.TempDir(), "providers.json")
	require.NoError(t, os.WriteFile(path, []byte(`{"providers":[{"name":"stripe","signature":{"scheme":"stripe"},
		"routes":[{"match":"customer.*","task":{"type":"data_export","maxRetries":5,
			"data":{"customerId":"data.object.id","email":"data.object.email"}}}]}]}`), 0o600))
	reg, err := provider.LoadProviders(path)
	require.NoError(t, err)
	s := newWebhookStackWith(t, reg)

	resp := s.do(t, s.signed(t, "stripe", testenv.Testdata(t, "webhooks/stripe-customer-created.json"), "whsec_stripe_test", provider.SignOptions{}))

	require.Equal(t, http.StatusAccepted, resp.status, resp.body)
	webhookEventID := resp.body["webhookEventId"].(string)
	tasks := s.Envelopes(t, events.TopicTasks)
	require.Len(t, tasks, 1)
	assert.Equal(t, webhookEventID, tasks[0].Metadata.CorrelationID)
	var created events.TaskCreatedPayload
	require.NoError(t, json.Unmarshal(tasks[0].Payload, &created))
	assert.Equal(t, events.TaskDataExport, created.Type)
	assert.Equal(t, 5, created.MaxRetries)
	assert.JSONEq(t, `{"customerId":"cus_RXy7kQm2Lp9VbN","email":"[REDACTED]"}`, string(created.Data))
	stored, err := s.Store.GetTask(context.Background(), created.TaskID)
	require.NoError(t, err)
	assert.Equal(t, webhookEventID, stored.WebhookEventID)
	wev, err := s.Store.GetWebhookEvent(context.Background(), webhookEventID)
	require.NoError(t, err)
	assert.Equal(t, status.WebhookProcessing, wev.Status)
}

func TestWebhookRejectionsStoreNothing(t *testing.T) {
	s := newWebhookStack(t)
	body := testenv.Testdata(t, "webhooks/stripe-invoice-finalized.json")
	tooBig := []byte(`{"id":"evt_big","type":"invoice.paid","pad":"` + strings.Repeat("x", 1<<20) + `"}`)
	tests := []struct {
		name   string
		req    func() *http.Request
		status int
		code   string
	}{
		{"unknown provider", func() *http.Request {
			return httptest.NewRequest(http.MethodPost, "/webhooks/nobody", bytes.NewReader(body))
		}, 404, "unknown_provider"},
		{"missing signature", func() *http.Request {
			return httptest.NewRequest(http.MethodPost, "/webhooks/stripe", bytes.NewReader(body))
		}, 401, "missing_signature"},
		{"wrong secret", func() *http.Request {
			return s.signed(t, "stripe", body, "whsec_wrong", provider.SignOptions{})
		}, 401, "invalid_signature"},
		{"stale timestamp", func() *http.Request {
			return s.signed(t, "stripe", body, "whsec_stripe_test", provider.SignOptions{Now: time.Now().Add(-10 * time.Minute)})
		}, 401, "stale_timestamp"},
		{"tampered body", func() *http.Request {
			r := s.signed(t, "stripe", body, "whsec_stripe_test", provider.SignOptions{})
			r.Body = http.NoBody
			tampered := bytes.Replace(body, []byte("invoice"), []byte("invoicE"), 1)
			r2 := httptest.NewRequest(http.MethodPost, r.URL.Path, bytes.NewReader(tampered))
			r2.Header = r.Header
			return r2
		}, 401, "invalid_signature"},
		{"malformed JSON", func() *http.Request {
			return s.signed(t, "github", []byte(`{"ref":`), "gh-secret", provider.SignOptions{ID: "d-1", EventType: "push"})
		}, 400, "invalid_payload"},
		{"repeated id: routed on one, stored with the other", func() *http.Request {
			return s.signed(t, "stripe", []byte(`{"id":"evt_dup_a","object":"event","type":"invoice.finalized","id":"evt_dup_b","data":{"object":{}}}`), "whsec_stripe_test", provider.SignOptions{})
		}, 400, "duplicate_key"},
		{"key with a NUL byte", func() *http.Request {
			return s.signed(t, "github", []byte(`{"ref":"refs/heads/main","commits":[{"a\u0000b":1}]}`), "gh-secret", provider.SignOptions{ID: "d-nul", EventType: "push"})
		}, 400, "unstorable_document"},
		{"body over the limit", func() *http.Request {
			return s.signed(t, "stripe", tooBig, "whsec_stripe_test", provider.SignOptions{})
		}, 413, "body_too_large"},
		{"wrong method", func() *http.Request {
			return httptest.NewRequest(http.MethodGet, "/webhooks/stripe", nil)
		}, 405, "method_not_allowed"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp := s.do(t, tc.req())
			assert.Equal(t, tc.status, resp.status, resp.body)
			assert.Equal(t, tc.code, errorCode(resp))
			msg, _ := resp.body["error"].(map[string]any)["message"].(string)
			assert.NotEmpty(t, msg, "the message says what to fix")
		})
	}
	for _, id := range []string{"evt_big", "evt_dup_a", "evt_dup_b"} {
		_, err := s.Store.GetWebhookEvent(context.Background(), store.WebhookEventID("stripe", id))
		assert.ErrorIs(t, err, store.ErrNotFound, id)
	}
	assert.Empty(t, s.Records(t, events.TopicWorkflows), "nothing published for a rejected request")
	docs, err := s.Store.SearchEvents(context.Background(), "webhook", "", 10)
	require.NoError(t, err)
	assert.Empty(t, docs, "nothing stored for a rejected request")
}

// TestWebhookDuplicateStorm sends deliveries from 8 workers at once, 30 %
// of them redeliveries of earlier ones: each unique delivery is accepted
// once and starts one workflow, every redelivery is a duplicate. 1,000
// deliveries in CI; testenv.VolumeEnv=full sends 10,000.
func TestWebhookDuplicateStorm(t *testing.T) {
	if testing.Short() {
		t.Skip("a storm of deliveries: in the full run, not in -short (the race run)")
	}
	s := newWebhookStack(t)
	const workers = 8
	total := testenv.Volume(1_000, 10_000)
	unique := total * 7 / 10
	p, _ := s.providers.Provider("github")
	reqs := make([]*http.Request, total)
	for i := range total {
		n := i
		if i >= unique {
			n = (i * 7919) % unique // 30% redeliveries of earlier events
		}
		body := []byte(fmt.Sprintf(`{"ref":"refs/heads/main","after":"%040d"}`, n))
		h, err := p.Sign(body, "gh-secret", provider.SignOptions{ID: fmt.Sprintf("delivery-%d", n), EventType: "push"})
		require.NoError(t, err)
		r := httptest.NewRequest(http.MethodPost, "/webhooks/github", bytes.NewReader(body))
		r.Header = h
		reqs[i] = r
	}
	var mu sync.Mutex
	statuses := map[int]int{}
	var wg sync.WaitGroup
	next := make(chan *http.Request)
	for range workers {
		wg.Go(func() {
			for r := range next {
				w := httptest.NewRecorder()
				s.handler.ServeHTTP(w, r)
				mu.Lock()
				statuses[w.Code]++
				mu.Unlock()
			}
		})
	}
	for _, r := range reqs {
		next <- r
	}
	close(next)
	wg.Wait()
	assert.Equal(t, map[int]int{http.StatusAccepted: unique, http.StatusOK: total - unique}, statuses,
		"every delivery answered 2xx: each unique event accepted once, every redelivery a duplicate")
	published := s.Records(t, events.TopicWorkflows)
	assert.Len(t, published, unique, "each unique delivery started exactly one workflow, published once")
	keys := map[string]bool{}
	for _, r := range published {
		keys[string(r.Key)] = true
	}
	assert.Len(t, keys, unique, "no workflow published twice")
	unpublished, err := s.Store.UnpublishedEvents(context.Background(), time.Now().Add(time.Hour), total)
	require.NoError(t, err)
	assert.Empty(t, unpublished, "every stored event was published")
}

// TestStoreThatDoesNotAnswerIs503WithRetryAfter: when the store does not
// answer within the request's time (here the deadline has already passed),
// every route that writes answers 503 with Retry-After, says the request
// may have been stored and that a retry is safe, and never 500.
func TestStoreThatDoesNotAnswerIs503WithRetryAfter(t *testing.T) {
	hooks := newWebhookStack(t)
	api := newAPIStack(t)
	expired := func(r *http.Request) *http.Request {
		ctx, cancel := context.WithDeadline(r.Context(), time.Now().Add(-time.Second))
		t.Cleanup(cancel)
		return r.WithContext(ctx)
	}
	authed := func(method, path, body string) *http.Request {
		r := httptest.NewRequest(method, path, strings.NewReader(body))
		r.Header.Set("Authorization", "Bearer "+adminToken)
		return r
	}
	tests := []struct {
		name    string
		handler http.Handler
		req     *http.Request
	}{
		{"webhook", hooks.handler, hooks.signed(t, "stripe", testenv.Testdata(t, "webhooks/stripe-invoice-finalized.json"), "whsec_stripe_test", provider.SignOptions{})},
		{"POST /api/workflows", api.handler, authed("POST", "/api/workflows", `{"name":"x","steps":["validate"],"priority":"low"}`)},
		{"POST /api/tasks", api.handler, authed("POST", "/api/tasks", `{"type":"data_export","data":{}}`)},
		{"GET /api/events", api.handler, authed("GET", "/api/events", "")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := httptest.NewRecorder()
			tc.handler.ServeHTTP(w, expired(tc.req))
			require.Equal(t, http.StatusServiceUnavailable, w.Code, w.Body.String())
			assert.Equal(t, httpapi.RetryAfterSeconds, w.Header().Get("Retry-After"))
			var body httpapi.ErrorBody
			require.NoError(t, json.Unmarshal(w.Body.Bytes(), &body))
			assert.Equal(t, "store_unavailable", body.Error.Code)
			assert.Contains(t, body.Error.Message, "may or may not have been stored")
			assert.Contains(t, body.Error.Message, "retrying it is safe")
		})
	}
}
