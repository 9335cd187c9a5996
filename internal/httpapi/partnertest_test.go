package httpapi_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/httpapi"
	"github.com/streamops/streamops/internal/outbox"
	"github.com/streamops/streamops/internal/testenv"
)

// relaySender is the relay's deliverer as the API's PartnerSender, field
// for field as handlers.PartnerTester wires it (httpapi's tests stay below
// handlers).
type relaySender struct{ d outbox.PartnerDeliverer }

func (r relaySender) SendTest(ctx context.Context, s httpapi.TestSend) httpapi.TestAttempt {
	a := r.d.Send(ctx, outbox.Partner{ID: s.PartnerID, Name: s.Name, URL: s.URL},
		outbox.Entry{ID: s.WebhookID, Target: s.PartnerID, EventType: string(s.EventType), Payload: s.Body})
	return httpapi.TestAttempt{Duration: a.Duration, StatusCode: a.StatusCode, Err: a.Err, RetryAfter: a.RetryAfter,
		Body: a.Body, SpanID: a.SpanID}
}

// staticSecrets gives each partner its signing secrets.
type staticSecrets map[string][]string

func (s staticSecrets) Secrets(_ context.Context, id string) ([]string, error) { return s[id], nil }

func testSecret(key string) string {
	return "whsec_" + base64.StdEncoding.EncodeToString([]byte(key+"-0123456789abcdef"))
}

// verifyingPartner is a partner endpoint that checks each request with the
// Standard Webhooks library against every secret it knows, records what
// it received, and answers as told.
type verifyingPartner struct {
	srv     *httptest.Server
	secrets []string
	status  int
	header  map[string]string
	answer  string

	mu       sync.Mutex
	received []receivedTest
}

// receivedTest is one request the partner got.
type receivedTest struct {
	body      []byte
	webhookID string
	// verified[i]: secret i alone verified the request.
	verified []bool
}

func newVerifyingPartner(t *testing.T, status int, answer string, header map[string]string, secrets ...string) *verifyingPartner {
	p := &verifyingPartner{secrets: secrets, status: status, answer: answer, header: header}
	p.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		got := receivedTest{body: body, webhookID: r.Header.Get("webhook-id")}
		for _, s := range secrets {
			wh, err := standardwebhooks.NewWebhook(s)
			require.NoError(t, err)
			got.verified = append(got.verified, wh.Verify(body, r.Header) == nil)
		}
		p.mu.Lock()
		p.received = append(p.received, got)
		p.mu.Unlock()
		for k, v := range p.header {
			w.Header().Set(k, v)
		}
		w.WriteHeader(p.status)
		_, _ = io.WriteString(w, p.answer)
	}))
	t.Cleanup(p.srv.Close)
	return p
}

func (p *verifyingPartner) requests() []receivedTest {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]receivedTest(nil), p.received...)
}

// TestPartnerTestSendsASignedExampleAndReportsTheAnswer: POST
// /api/partners/{partnerId}/test signs the example with every secret of
// the partner, the endpoint verifies it with the Standard Webhooks
// library, and the answer is what the endpoint said — an error status or
// no answer at all included — without an outbox entry or a breaker
// change.
func TestPartnerTestSendsASignedExampleAndReportsTheAnswer(t *testing.T) {
	oldS, newS := testSecret("old"), testSecret("new")
	ok := newVerifyingPartner(t, http.StatusOK, "thanks", nil, oldS, newS)
	failing := newVerifyingPartner(t, http.StatusServiceUnavailable, "down for maintenance, ask ops@partner.example",
		map[string]string{"Retry-After": "30"}, newS)
	gone := httptest.NewServer(http.NotFoundHandler())
	gone.Close() // nothing listens: the connection is refused

	env := testenv.New(t, testenv.Options{})
	var logs bytes.Buffer
	partners := map[string]httpapi.PartnerConfig{
		"ok":      {ID: "ok", Name: "OK", URL: ok.srv.URL + "/hooks"},
		"failing": {ID: "failing", Name: "Failing", URL: failing.srv.URL},
		"gone":    {ID: "gone", Name: "Gone", URL: gone.URL},
		"inbound": {ID: "inbound", Name: "Inbound only"},
	}
	h := httpapi.API(httpapi.APIConfig{Store: env.Store, Partners: partners,
		Logger: slog.New(slog.NewJSONHandler(&logs, nil)),
		Sender: relaySender{outbox.PartnerDeliverer{Secrets: staticSecrets{"ok": {oldS, newS}, "failing": {newS}, "gone": {newS}}, Timeout: 2 * time.Second}},
		Auth:   httpapi.TokenAuth{AdminToken: adminToken, PartnerTokens: map[string]string{"ok-token": "ok", "failing-token": "failing"}}})

	send := func(t *testing.T, token, partner, body string) (int, map[string]any) {
		r := httptest.NewRequest(http.MethodPost, "/api/partners/"+partner+"/test", strings.NewReader(body))
		r.Header.Set("Authorization", "Bearer "+token)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		var out map[string]any
		require.NoError(t, json.Unmarshal(w.Body.Bytes(), &out), w.Body.String())
		return w.Code, out
	}

	cases := []struct {
		name, token, partner, body string
		partnerGot                 *verifyingPartner
		wantCode                   int
		wantType                   events.Type
		check                      func(t *testing.T, out map[string]any)
	}{
		{name: "default example, verified with each secret", token: adminToken, partner: "ok", partnerGot: ok,
			wantCode: http.StatusOK, wantType: events.WorkflowCompleted, check: func(t *testing.T, out map[string]any) {
				assert.Equal(t, true, out["delivered"])
				assert.EqualValues(t, 200, out["statusCode"])
				assert.Equal(t, "thanks", out["responseBody"])
				assert.NotContains(t, out, "error")
			}},
		{name: "a chosen type", token: adminToken, partner: "ok", body: `{"eventType":"task.dead_letter"}`, partnerGot: ok,
			wantCode: http.StatusOK, wantType: events.TaskDeadLetter, check: func(t *testing.T, out map[string]any) {
				assert.Equal(t, true, out["delivered"])
			}},
		{name: "an error status is the endpoint's answer", token: adminToken, partner: "failing", body: `{"eventType":"task.created"}`,
			partnerGot: failing, wantCode: http.StatusOK, wantType: events.TaskCreated, check: func(t *testing.T, out map[string]any) {
				assert.Equal(t, false, out["delivered"])
				assert.EqualValues(t, 503, out["statusCode"])
				assert.Equal(t, "30", out["retryAfter"])
				assert.Contains(t, out["error"], "503")
				assert.Contains(t, out["responseBody"], "down for maintenance")
				assert.NotContains(t, out["responseBody"], "ops@partner.example", "the excerpt is scrubbed")
				assert.NotContains(t, out["error"], "ops@partner.example", "the error is scrubbed")
			}},
		{name: "no answer: the error says why", token: adminToken, partner: "gone", wantCode: http.StatusOK,
			wantType: events.WorkflowCompleted, check: func(t *testing.T, out map[string]any) {
				assert.Equal(t, false, out["delivered"])
				assert.NotContains(t, out, "statusCode")
				assert.Contains(t, out["error"], "connection refused")
			}},
		{name: "unknown partner", token: adminToken, partner: "nobody", wantCode: http.StatusNotFound,
			check: func(t *testing.T, out map[string]any) { assert.Equal(t, "partner_not_found", errCode(out)) }},
		{name: "a partner without a delivery endpoint", token: adminToken, partner: "inbound", wantCode: http.StatusNotFound,
			check: func(t *testing.T, out map[string]any) { assert.Equal(t, "partner_not_found", errCode(out)) }},
		{name: "unknown event type", token: adminToken, partner: "ok", body: `{"eventType":"order.shipped"}`, wantCode: http.StatusBadRequest,
			check: func(t *testing.T, out map[string]any) { assert.Equal(t, "validation_failed", errCode(out)) }},
		{name: "unknown field", token: adminToken, partner: "ok", body: `{"type":"task.created"}`, wantCode: http.StatusBadRequest,
			check: func(t *testing.T, out map[string]any) { assert.Equal(t, "invalid_payload", errCode(out)) }},
		{name: "the partner's own token", token: "ok-token", partner: "ok", partnerGot: ok, wantCode: http.StatusOK, wantType: events.WorkflowCompleted,
			check: func(t *testing.T, out map[string]any) { assert.Equal(t, true, out["delivered"]) }},
		{name: "another partner's token", token: "failing-token", partner: "ok", wantCode: http.StatusForbidden,
			check: func(t *testing.T, out map[string]any) { assert.Equal(t, "forbidden", errCode(out)) }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := map[*verifyingPartner]int{ok: len(ok.requests()), failing: len(failing.requests())}
			logs.Reset()
			code, out := send(t, tc.token, tc.partner, tc.body)
			require.Equal(t, tc.wantCode, code, out)
			tc.check(t, out)
			if tc.partnerGot == nil {
				assert.Equal(t, before[ok], len(ok.requests()), "nothing sent")
				assert.Equal(t, before[failing], len(failing.requests()), "nothing sent")
				if tc.wantCode != http.StatusOK {
					return
				}
			}
			assert.Equal(t, tc.partner, out["partnerId"])
			assert.Equal(t, string(tc.wantType), out["eventType"])
			assert.True(t, strings.HasPrefix(out["webhookId"].(string), httpapi.TestIDPrefix), out["webhookId"])
			assert.Contains(t, logs.String(), `"msg":"partner test attempt"`)
			assert.Contains(t, logs.String(), out["webhookId"].(string))
			if tc.partnerGot != nil {
				reqs := tc.partnerGot.requests()
				require.Len(t, reqs, before[tc.partnerGot]+1, "one request")
				got := reqs[len(reqs)-1]
				for i, v := range got.verified {
					assert.True(t, v, "secret %d verifies the test", i)
				}
				assert.Equal(t, out["webhookId"], got.webhookID)
				require.NoError(t, events.Validate(got.body), "a valid event as StreamOps produces it")
				env, err := events.Decode(got.body)
				require.NoError(t, err)
				assert.Equal(t, tc.wantType, env.EventType)
				assert.Equal(t, out["eventId"], env.EventID, "the id reported is the one sent")
				assert.WithinDuration(t, time.Now(), env.Timestamp.Time, time.Minute, "a fresh timestamp")
			}
		})
	}

	t.Run("each test is a new event", func(t *testing.T) {
		_, first := send(t, adminToken, "ok", "")
		_, second := send(t, adminToken, "ok", "")
		assert.NotEqual(t, first["eventId"], second["eventId"])
		assert.NotEqual(t, first["webhookId"], second["webhookId"])
	})

	t.Run("no outbox entry, no breaker change", func(t *testing.T) {
		ctx := context.Background()
		ids := []string{"ok", "failing", "gone"}
		backlogs, err := env.Store.PartnerBacklog(ctx, ids...)
		require.NoError(t, err)
		for _, id := range ids {
			assert.Zero(t, backlogs[id].Count, id)
		}
		eps, err := env.Store.PartnerEndpoints(ctx, ids...)
		require.NoError(t, err)
		assert.Empty(t, eps, "the breaker has no record of the tests")
		known, err := env.Store.PartnerIDs(ctx)
		require.NoError(t, err)
		assert.Empty(t, known)
	})
}

// TestPartnerTestWithoutASenderIsNotImplemented: an API wired without a
// PartnerSender says so rather than pretend.
func TestPartnerTestWithoutASenderIsNotImplemented(t *testing.T) {
	env := testenv.New(t, testenv.Options{})
	h := httpapi.API(httpapi.APIConfig{Store: env.Store, Partners: testPartners, Logger: env.Logger,
		Auth: httpapi.TokenAuth{AdminToken: adminToken}})
	r := httptest.NewRequest(http.MethodPost, "/api/partners/acme/test", nil)
	r.Header.Set("Authorization", "Bearer "+adminToken)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	assert.Equal(t, http.StatusNotImplemented, w.Code)
	assert.Contains(t, w.Body.String(), `"no_sender"`)
}

// TestEventTypesAreTheCatalogInOrder: GET /api/event-types shows every
// type of events.Types in its order, each with its self-contained schema
// and its example, to admin and partner tokens alike.
func TestEventTypesAreTheCatalogInOrder(t *testing.T) {
	env := testenv.New(t, testenv.Options{})
	h := httpapi.API(httpapi.APIConfig{Store: env.Store, Logger: env.Logger,
		Auth: httpapi.TokenAuth{AdminToken: adminToken, PartnerTokens: map[string]string{"acme-token": "acme"}}})
	for _, token := range []string{adminToken, "acme-token"} {
		t.Run(token, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodGet, "/api/event-types", nil)
			r.Header.Set("Authorization", "Bearer "+token)
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			require.Equal(t, http.StatusOK, w.Code, w.Body.String())
			var out struct {
				EventTypes []httpapi.EventTypeView `json:"eventTypes"`
			}
			require.NoError(t, json.Unmarshal(w.Body.Bytes(), &out))
			require.Len(t, out.EventTypes, len(events.Types))
			for i, typ := range events.Types {
				got := out.EventTypes[i]
				assert.Equal(t, string(typ), got.EventType)
				assert.Equal(t, typ.Topic(), got.Topic)
				schema, err := events.Schema(typ)
				require.NoError(t, err)
				assert.JSONEq(t, string(schema), string(got.Schema))
				example, err := events.Example(typ)
				require.NoError(t, err)
				assert.JSONEq(t, string(example), string(got.Example))
			}
		})
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/api/event-types", nil))
	assert.Equal(t, http.StatusUnauthorized, w.Code)
}

// errCode is an error answer's code.
func errCode(out map[string]any) string {
	e, _ := out["error"].(map[string]any)
	s, _ := e["code"].(string)
	return s
}
