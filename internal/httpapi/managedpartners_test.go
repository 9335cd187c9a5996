package httpapi_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/httpapi"
	"github.com/streamops/streamops/internal/opsevents"
	"github.com/streamops/streamops/internal/outbox"
	"github.com/streamops/streamops/internal/partners"
	"github.com/streamops/streamops/internal/partners/partner"
	"github.com/streamops/streamops/internal/status"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/testenv"
	"github.com/streamops/streamops/internal/vault"
)

// offsetClock is the wall clock moved forward by what a test advances it.
type offsetClock struct {
	mu sync.Mutex
	d  time.Duration
}

func (c *offsetClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Now().Add(c.d)
}

func (c *offsetClock) Advance(d time.Duration) { c.mu.Lock(); c.d += d; c.mu.Unlock() }

// managedStack is the API with a registry on the real store and the real
// local key file, its log lines kept.
type managedStack struct {
	*apiStack
	registry *partners.Registry
	keys     *vault.KeyFile
	clock    *offsetClock
	logs     *testenv.Output
}

func newManagedStack(t *testing.T) *managedStack {
	env := testenv.New(t, testenv.Options{})
	keys, err := vault.LoadKeyFile(filepath.Join(t.TempDir(), vault.KeyFileName))
	require.NoError(t, err)
	logs := &testenv.Output{}
	logger := slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	clock := &offsetClock{}
	reg, err := partners.New(partners.Config{Store: env.Store, Wrapper: keys, Now: clock.Now, Logger: logger})
	require.NoError(t, err)
	h := httpapi.API(httpapi.APIConfig{Store: env.Store, Logger: logger, Partners: testPartners, Registry: reg,
		Operations:    opsevents.New(env.Emitter, logger),
		Subscriptions: partner.Subscriptions{Store: env.Store},
		Auth: httpapi.TokenAuth{AdminToken: adminToken, PartnerTokens: map[string]string{"acme-token": "acme", "zeta-token": "zeta"},
			Tokens: map[string]httpapi.Principal{"alice-token": httpapi.AdminPrincipal("alice")}}})
	return &managedStack{apiStack: &apiStack{Env: env, handler: h}, registry: reg, keys: keys, clock: clock, logs: logs}
}

// raw is the answer's body as text, for what must never be in it.
func (s *managedStack) raw(t *testing.T, method, path, body string, headers ...string) (int, string) {
	r := httptest.NewRequest(method, path, strings.NewReader(body))
	r.Header.Set("Authorization", "Bearer "+adminToken)
	for i := 0; i+1 < len(headers); i += 2 {
		r.Header.Set(headers[i], headers[i+1])
	}
	w := httptest.NewRecorder()
	s.handler.ServeHTTP(w, r)
	return w.Code, w.Body.String()
}

const zetaBody = `{"id":"zeta","name":"Zeta","url":"https://zeta.example/hooks","rateLimit":2,"maxInFlight":3,
	"clearPersonalData":["email"],"subscriptions":[{"eventTypes":["workflow.completed"],"filter":{"payload.name":{"$eq":"Nightly"}}}]}`

// TestManagedPartnerRoutesAnswerEachRequest walks one partner through
// every route: each answers its status and code (4xx naming the field),
// and no answer but the create's and the rotation's, and no log line,
// ever holds a secret.
func TestManagedPartnerRoutesAnswerEachRequest(t *testing.T) {
	s := newManagedStack(t)
	_, err := s.Store.EnqueueOutbox(t.Context(), store.OutboxEntry{OutboxID: "z-1", TargetProvider: "zeta", Payload: store.JSONDoc(`{}`)},
		store.OutboxEntry{OutboxID: "z-2", TargetProvider: "zeta", Payload: store.JSONDoc(`{}`)})
	require.NoError(t, err)

	var secrets []string
	tests := []struct {
		name, method, path, body, token string
		status                          int
		code, field                     string
		check                           func(t *testing.T, body map[string]any)
	}{
		{name: "create", method: "POST", path: "/api/partners", body: zetaBody, status: http.StatusCreated, check: func(t *testing.T, b map[string]any) {
			secret := b["secret"].(map[string]any)
			assert.Regexp(t, `^whsec_[A-Za-z0-9+/]{43}=$`, secret["value"])
			secrets = append(secrets, secret["value"].(string))
			p := b["partner"].(map[string]any)
			assert.Equal(t, "zeta", p["id"])
			assert.EqualValues(t, 1, p["version"])
			assert.Equal(t, "api", p["source"])
			assert.Equal(t, map[string]any{"payload.name": map[string]any{"$eq": "Nightly"}}, p["subscriptions"].([]any)[0].(map[string]any)["filter"])
		}},
		{name: "create again", method: "POST", path: "/api/partners", body: zetaBody, status: http.StatusConflict, code: "partner_exists"},
		{name: "create a file partner's id", method: "POST", path: "/api/partners", body: `{"id":"kafka","url":"https://x.example/"}`, status: http.StatusBadRequest, code: "validation_failed", field: "id"},
		{name: "create without a url", method: "POST", path: "/api/partners", body: `{"id":"eta"}`, status: http.StatusBadRequest, code: "validation_failed", field: "url"},
		{name: "create with a bad event type", method: "POST", path: "/api/partners", body: `{"id":"eta","url":"https://eta.example/","subscriptions":[{"eventTypes":["workflow*"]}]}`,
			status: http.StatusBadRequest, code: "validation_failed", field: "subscriptions[0].eventTypes[0]"},
		{name: "create with an unknown field", method: "POST", path: "/api/partners", body: `{"id":"eta","url":"https://eta.example/","secret":"mine"}`, status: http.StatusBadRequest, code: "invalid_payload"},
		{name: "create by a partner token", method: "POST", path: "/api/partners", body: zetaBody, token: "acme-token", status: http.StatusForbidden, code: "forbidden"},
		{name: "get", method: "GET", path: "/api/partners/zeta", status: http.StatusOK, check: func(t *testing.T, b map[string]any) {
			assert.Equal(t, "https://zeta.example/hooks", b["url"])
			assert.Len(t, b["secrets"], 1)
		}},
		{name: "get an unknown partner", method: "GET", path: "/api/partners/eta", status: http.StatusNotFound, code: "partner_not_found"},
		{name: "patch the url", method: "PATCH", path: "/api/partners/zeta", body: `{"url":"https://zeta.example/v2","rateLimit":null,"version":1}`, status: http.StatusOK,
			check: func(t *testing.T, b map[string]any) {
				assert.Equal(t, "https://zeta.example/v2", b["url"])
				assert.NotContains(t, b, "rateLimit", "null cleared it")
				assert.EqualValues(t, 3, b["maxInFlight"], "what the patch does not name stays")
				assert.EqualValues(t, 2, b["version"])
			}},
		{name: "patch at a stale version", method: "PATCH", path: "/api/partners/zeta", body: `{"name":"Zeta AG","version":1}`, status: http.StatusConflict, code: "version_conflict"},
		{name: "patch a limit with text", method: "PATCH", path: "/api/partners/zeta", body: `{"maxInFlight":"many"}`, status: http.StatusBadRequest, code: "invalid_payload", field: "maxInFlight"},
		{name: "patch a bad filter", method: "PATCH", path: "/api/partners/zeta", body: `{"subscriptions":[{"eventTypes":["task.*"],"filter":[1]}]}`,
			status: http.StatusBadRequest, code: "validation_failed", field: "subscriptions[0].filter"},
		{name: "patch an unknown partner", method: "PATCH", path: "/api/partners/eta", body: `{"name":"x"}`, status: http.StatusNotFound, code: "partner_not_found"},
		{name: "disable", method: "POST", path: "/api/partners/zeta/disable", body: `{"reason":"endpoint migration"}`, token: "alice-token", status: http.StatusOK,
			check: func(t *testing.T, b map[string]any) {
				assert.Equal(t, true, b["disabled"])
				assert.Equal(t, "endpoint migration", b["disabledReason"])
				assert.Equal(t, "alice", b["disabledBy"])
			}},
		{name: "enable", method: "POST", path: "/api/partners/zeta/enable", status: http.StatusOK, check: func(t *testing.T, b map[string]any) {
			assert.Equal(t, false, b["disabled"])
		}},
		{name: "enable takes no field", method: "POST", path: "/api/partners/zeta/enable", body: `{"by":"me"}`, status: http.StatusBadRequest, code: "invalid_payload"},
		{name: "rotate with a bad overlap", method: "POST", path: "/api/partners/zeta/secrets/rotate", body: `{"overlap":"a while"}`, status: http.StatusBadRequest, code: "validation_failed", field: "overlap"},
		{name: "rotate with an overlap too long", method: "POST", path: "/api/partners/zeta/secrets/rotate", body: `{"overlap":"800h"}`, status: http.StatusBadRequest, code: "validation_failed", field: "overlap"},
		{name: "rotate", method: "POST", path: "/api/partners/zeta/secrets/rotate", status: http.StatusOK, check: func(t *testing.T, b map[string]any) {
			secret := b["secret"].(map[string]any)
			secrets = append(secrets, secret["value"].(string))
			stop, err := time.Parse(time.RFC3339, b["oldSecretsStop"].(string))
			require.NoError(t, err)
			assert.WithinDuration(t, time.Now().Add(partners.DefaultOverlap), stop, time.Minute)
			assert.Len(t, b["partner"].(map[string]any)["secrets"], 2)
		}},
		{name: "the list shows it", method: "GET", path: "/api/partners", status: http.StatusOK, check: func(t *testing.T, b map[string]any) {
			var zeta map[string]any
			for _, p := range b["partners"].([]any) {
				if p.(map[string]any)["partnerId"] == "zeta" {
					zeta = p.(map[string]any)
				}
			}
			require.NotNil(t, zeta, "a stored partner is listed")
			assert.Equal(t, "https://zeta.example/v2", zeta["config"].(map[string]any)["deliveryUrl"])
			assert.EqualValues(t, 3, zeta["maxInFlight"])
			assert.Equal(t, "zeta", zeta["managed"].(map[string]any)["id"])
		}},
		{name: "pause works on a stored partner", method: "POST", path: "/api/partners/zeta/pause", status: http.StatusOK},
		{name: "delete", method: "DELETE", path: "/api/partners/zeta", status: http.StatusOK, check: func(t *testing.T, b map[string]any) {
			assert.EqualValues(t, 2, b["cancelled"], "its two waiting deliveries")
			assert.NotEmpty(t, b["partner"].(map[string]any)["deletedAt"])
		}},
		{name: "delete again", method: "DELETE", path: "/api/partners/zeta", status: http.StatusNotFound, code: "partner_not_found"},
		{name: "a deleted partner's history", method: "GET", path: "/api/partners/zeta", status: http.StatusOK, check: func(t *testing.T, b map[string]any) {
			assert.NotEmpty(t, b["deletedAt"])
		}},
		{name: "rotate a deleted partner", method: "POST", path: "/api/partners/zeta/secrets/rotate", status: http.StatusNotFound, code: "partner_not_found"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			headers := []string{}
			if tc.token != "" {
				headers = append(headers, "Authorization", "Bearer "+tc.token)
			}
			code, raw := s.raw(t, tc.method, tc.path, tc.body, headers...)
			require.Equal(t, tc.status, code, raw)
			var body map[string]any
			require.NoError(t, json.Unmarshal([]byte(raw), &body), raw)
			if tc.code != "" {
				e := body["error"].(map[string]any)
				assert.Equal(t, tc.code, e["code"], raw)
				assert.Equal(t, tc.field, valueOr(e["field"]), raw)
			} else if tc.check != nil {
				tc.check(t, body)
			}
			if tc.name != "create" && tc.name != "rotate" {
				for _, secret := range secrets {
					assert.NotContains(t, raw, secret, "a secret is shown only once")
				}
			}
		})
	}
	require.Len(t, secrets, 2)
	for _, secret := range secrets {
		assert.NotContains(t, s.logs.String(), secret, "never logged")
	}
	for _, id := range []string{"z-1", "z-2"} {
		e, err := s.Store.GetOutboxEntry(t.Context(), id)
		require.NoError(t, err)
		assert.Equal(t, status.OutboxDeadLetter, e.Status)
		assert.Equal(t, partners.CancelledReason, e.LastError)
	}
}

// TestManagedPartnersWithoutAVaultAnswer501: an API built without a vault
// has nothing to seal secrets with.
func TestManagedPartnersWithoutAVaultAnswer501(t *testing.T) {
	s := newAPIStack(t)
	for _, r := range []struct{ method, path, body string }{
		{"POST", "/api/partners", zetaBody},
		{"GET", "/api/partners/zeta", ""},
		{"PATCH", "/api/partners/zeta", `{"name":"x"}`},
		{"DELETE", "/api/partners/zeta", ""},
		{"POST", "/api/partners/zeta/secrets/rotate", ""},
		{"POST", "/api/partners/zeta/disable", ""},
		{"POST", "/api/partners/zeta/enable", ""},
	} {
		resp := s.call(t, r.method, r.path, r.body)
		require.Equal(t, http.StatusNotImplemented, resp.status, "%s %s: %v", r.method, r.path, resp.body)
		assert.Equal(t, "no_vault", resp.body["error"].(map[string]any)["code"])
	}
}

// endpoint is a partner endpoint that records what it received.
type endpoint struct {
	srv *httptest.Server
	mu  sync.Mutex
	got []*http.Request
	bod [][]byte
}

func newEndpoint(t *testing.T) *endpoint {
	e := &endpoint{}
	e.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		e.mu.Lock()
		e.got, e.bod = append(e.got, r.Clone(context.Background())), append(e.bod, body)
		e.mu.Unlock()
	}))
	t.Cleanup(e.srv.Close)
	return e
}

func (e *endpoint) received() ([]*http.Request, [][]byte) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]*http.Request(nil), e.got...), append([][]byte(nil), e.bod...)
}

// relayOn is an outbox relay reading the partners from dir.
func relayOn(t *testing.T, s *managedStack, dir *partners.Directory) *outbox.Relay {
	r, err := outbox.New(outbox.Config{Store: s.Store, Kafka: outbox.KafkaDeliverer{Publisher: s.Bus},
		Directory: dir, PartnerDeliverer: outbox.PartnerDeliverer{Secrets: dir, Timeout: 2 * time.Second}, Logger: s.Logger})
	require.NoError(t, err)
	return r
}

// TestARelaySeesAPatchedURLWithinItsRefresh: the directory of a relay
// already running serves the new URL once its refresh has passed, without
// a restart, and the next delivery goes there.
func TestARelaySeesAPatchedURLWithinItsRefresh(t *testing.T) {
	s := newManagedStack(t)
	first, second := newEndpoint(t), newEndpoint(t)
	code, raw := s.raw(t, "POST", "/api/partners", `{"id":"zeta","name":"Zeta","url":"`+first.srv.URL+`"}`)
	require.Equal(t, http.StatusCreated, code, raw)
	dir, err := partners.NewDirectory(partners.DirectoryConfig{Store: s.Store, Wrapper: s.keys, Refresh: 20 * time.Millisecond})
	require.NoError(t, err)
	relay := relayOn(t, s, dir)

	_, err = s.Store.EnqueueOutbox(t.Context(), store.OutboxEntry{OutboxID: "z-1", TargetProvider: "zeta", EventType: "workflow.completed", Payload: store.JSONDoc(`{"n":1}`)})
	require.NoError(t, err)
	st, err := relay.Run(t.Context())
	require.NoError(t, err)
	require.Equal(t, 1, st.Delivered)

	code, raw = s.raw(t, "PATCH", "/api/partners/zeta", `{"url":"`+second.srv.URL+`"}`)
	require.Equal(t, http.StatusOK, code, raw)
	require.Eventually(t, func() bool {
		ps, err := dir.Partners(t.Context())
		return err == nil && ps["zeta"].URL == second.srv.URL
	}, 5*time.Second, 5*time.Millisecond, "the directory sees the new URL after its refresh")

	_, err = s.Store.EnqueueOutbox(t.Context(), store.OutboxEntry{OutboxID: "z-2", TargetProvider: "zeta", EventType: "workflow.completed", Payload: store.JSONDoc(`{"n":2}`)})
	require.NoError(t, err)
	st, err = relay.Run(t.Context())
	require.NoError(t, err)
	require.Equal(t, 1, st.Delivered)
	got1, _ := first.received()
	got2, _ := second.received()
	require.Len(t, got1, 1)
	require.Len(t, got2, 1)
	assert.Equal(t, "z-2", got2[0].Header.Get("webhook-id"))
}

// TestARotatedPartnersDeliveriesVerifyWithEitherSecretDuringTheOverlap:
// during the overlap a delivery verifies with the Standard Webhooks
// library under the old secret and under the new one; after it, under the
// new one only.
func TestARotatedPartnersDeliveriesVerifyWithEitherSecretDuringTheOverlap(t *testing.T) {
	s := newManagedStack(t)
	ep := newEndpoint(t)
	code, raw := s.raw(t, "POST", "/api/partners", `{"id":"zeta","url":"`+ep.srv.URL+`"}`)
	require.Equal(t, http.StatusCreated, code, raw)
	var created httpapi.CreatedPartnerView
	require.NoError(t, json.Unmarshal([]byte(raw), &created))
	code, raw = s.raw(t, "POST", "/api/partners/zeta/secrets/rotate", `{"overlap":"1h"}`)
	require.Equal(t, http.StatusOK, code, raw)
	var rotated httpapi.RotatedSecretView
	require.NoError(t, json.Unmarshal([]byte(raw), &rotated))
	oldS, newS := created.Secret.Value, rotated.Secret.Value

	dir, err := partners.NewDirectory(partners.DirectoryConfig{Store: s.Store, Wrapper: s.keys, Refresh: time.Millisecond, Now: s.clock.Now})
	require.NoError(t, err)
	relay := relayOn(t, s, dir)
	deliver := func(id string) {
		_, err := s.Store.EnqueueOutbox(t.Context(), store.OutboxEntry{OutboxID: id, TargetProvider: "zeta", EventType: "workflow.completed", Payload: store.JSONDoc(`{"id":"` + id + `"}`)})
		require.NoError(t, err)
		st, err := relay.Run(t.Context())
		require.NoError(t, err)
		require.Equal(t, 1, st.Delivered)
	}

	tests := []struct {
		name     string
		advance  time.Duration
		verifies map[string]bool
	}{
		{"during the overlap", 0, map[string]bool{"old": true, "new": true}},
		{"just before its end", 59 * time.Minute, map[string]bool{"old": true, "new": true}},
		{"after it", time.Minute, map[string]bool{"old": false, "new": true}},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s.clock.Advance(tc.advance)
			deliver("z-" + string(rune('a'+i)))
			reqs, bodies := ep.received()
			require.Len(t, reqs, i+1)
			last, body := reqs[i], bodies[i]
			for name, secret := range map[string]string{"old": oldS, "new": newS} {
				assert.Equal(t, tc.verifies[name], verifiesWith(t, secret, body, last.Header), "%s secret", name)
			}
		})
	}
}

// verifiesWith says whether the Standard Webhooks library verifies the
// delivery under secret alone.
func verifiesWith(t *testing.T, secret string, body []byte, h http.Header) bool {
	wh, err := standardwebhooks.NewWebhook(secret)
	require.NoError(t, err)
	return wh.Verify(body, h) == nil
}

// TestDisableAndEnableEmitTheirEventOncePerChange: an operator's disable
// emits partner.disabled with the reason, a second disable of a disabled
// partner emits nothing; enable emits partner.enabled with the backlog
// that drains and when the disable began, once.
func TestDisableAndEnableEmitTheirEventOncePerChange(t *testing.T) {
	s := newManagedStack(t)
	require.Equal(t, http.StatusCreated, s.call(t, "POST", "/api/partners", zetaBody).status)
	_, err := s.Store.EnqueueOutbox(t.Context(), store.OutboxEntry{OutboxID: "z-1", TargetProvider: "zeta", Payload: store.JSONDoc(`{}`)})
	require.NoError(t, err)
	for range 2 {
		require.Equal(t, http.StatusOK, s.call(t, "POST", "/api/partners/zeta/disable", `{"reason":"endpoint migration"}`).status)
	}
	for range 2 {
		require.Equal(t, http.StatusOK, s.call(t, "POST", "/api/partners/zeta/enable", "").status)
	}
	var types []events.Type
	var disabled events.PartnerDisabledPayload
	var enabled events.PartnerEnabledPayload
	for _, e := range s.Env.Envelopes(t, events.TopicOperations) {
		types = append(types, e.EventType)
		switch e.EventType {
		case events.PartnerDisabled:
			require.NoError(t, json.Unmarshal(e.Payload, &disabled))
		case events.PartnerEnabled:
			require.NoError(t, json.Unmarshal(e.Payload, &enabled))
		}
	}
	assert.Equal(t, []events.Type{events.PartnerDisabled, events.PartnerEnabled}, types)
	assert.Equal(t, "endpoint migration", disabled.Reason)
	assert.Equal(t, httpapi.AdminTokenName, disabled.By)
	assert.Equal(t, 1, enabled.Backlog, "the entry that waited")
	require.NotNil(t, enabled.DisabledAt)
	assert.Equal(t, disabled.DisabledAt.Time, enabled.DisabledAt.Time)
}

// TestATestSendToAStoredPartnerIsSignedWithItsOwnSecret: POST
// /api/partners/{partnerId}/test finds a partner kept in the store (none
// in the partners file) and signs with the secret its create answered,
// as the relay's directory opens it; a deleted partner is 404.
func TestATestSendToAStoredPartnerIsSignedWithItsOwnSecret(t *testing.T) {
	s := newManagedStack(t)
	var mu sync.Mutex
	var got []*http.Request
	var bodies [][]byte
	endpoint := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		got, bodies = append(got, r), append(bodies, b)
		mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(endpoint.Close)
	created, err := s.registry.Create(t.Context(), partners.Spec{ID: "theta", Name: "Theta", URL: endpoint.URL}, "alice")
	require.NoError(t, err)
	dir, err := partners.NewDirectory(partners.DirectoryConfig{Store: s.Store, Wrapper: s.keys})
	require.NoError(t, err)
	h := httpapi.API(httpapi.APIConfig{Store: s.Store, Logger: slog.New(slog.DiscardHandler), Registry: s.registry,
		Sender: relaySender{outbox.PartnerDeliverer{Secrets: dir, Timeout: 2 * time.Second}},
		Auth:   httpapi.TokenAuth{AdminToken: adminToken}})
	call := func(path string) (int, map[string]any) {
		r := httptest.NewRequest(http.MethodPost, path, strings.NewReader(`{"eventType":"workflow.completed"}`))
		r.Header.Set("Authorization", "Bearer "+adminToken)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		var body map[string]any
		_ = json.Unmarshal(w.Body.Bytes(), &body)
		return w.Code, body
	}

	code, body := call("/api/partners/theta/test")
	require.Equal(t, http.StatusOK, code, "%v", body)
	assert.Equal(t, true, body["delivered"])
	mu.Lock()
	require.Len(t, got, 1)
	wh, err := standardwebhooks.NewWebhook(created.Secret.Value)
	require.NoError(t, err)
	assert.NoError(t, wh.Verify(bodies[0], got[0].Header), "signed with the secret the create answered")
	mu.Unlock()

	_, err = s.registry.Delete(t.Context(), "theta", "alice")
	require.NoError(t, err)
	code, body = call("/api/partners/theta/test")
	assert.Equal(t, http.StatusNotFound, code)
	assert.Equal(t, "partner_not_found", body["error"].(map[string]any)["code"], "%v", body)
}

// TestAPartnersOwnTokenManagesItsOwnEndpointOnly: a partner's token reads
// its stored partner, changes its URL and subscriptions, rotates its own
// secret, tests a subscription; it may not change what the operator sets
// (name, limits, clear personal data), create, delete, disable or enable,
// and nothing of another partner.
func TestAPartnersOwnTokenManagesItsOwnEndpointOnly(t *testing.T) {
	s := newManagedStack(t)
	require.Equal(t, http.StatusCreated, s.call(t, "POST", "/api/partners", zetaBody).status)
	require.Equal(t, http.StatusCreated, s.call(t, "POST", "/api/partners", `{"id":"acme","url":"https://acme.example/in"}`).status)
	zeta := []string{"Authorization", "Bearer zeta-token"}
	for _, c := range []struct {
		name, method, path, body string
		status                   int
	}{
		{"read its own", "GET", "/api/partners/zeta", "", http.StatusOK},
		{"change its url", "PATCH", "/api/partners/zeta", `{"url":"https://zeta.example/v3"}`, http.StatusOK},
		{"change its subscriptions", "PATCH", "/api/partners/zeta", `{"subscriptions":[{"eventTypes":["task.*"]}]}`, http.StatusOK},
		{"rotate its own secret", "POST", "/api/partners/zeta/secrets/rotate", `{"overlap":"1h"}`, http.StatusOK},
		{"test its subscriptions", "POST", "/api/partners/zeta/subscriptions/test", `{"last":5}`, http.StatusOK},
		{"change its rate limit", "PATCH", "/api/partners/zeta", `{"rateLimit":100}`, http.StatusForbidden},
		{"change what it receives in clear", "PATCH", "/api/partners/zeta", `{"clearPersonalData":["all"]}`, http.StatusForbidden},
		{"rename itself", "PATCH", "/api/partners/zeta", `{"name":"Zeta!"}`, http.StatusForbidden},
		{"disable itself", "POST", "/api/partners/zeta/disable", "", http.StatusForbidden},
		{"enable itself", "POST", "/api/partners/zeta/enable", "", http.StatusForbidden},
		{"delete itself", "DELETE", "/api/partners/zeta", "", http.StatusForbidden},
		{"create a partner", "POST", "/api/partners", `{"id":"eta","url":"https://eta.example/"}`, http.StatusForbidden},
		{"read another", "GET", "/api/partners/acme", "", http.StatusForbidden},
		{"change another's url", "PATCH", "/api/partners/acme", `{"url":"https://evil.example/"}`, http.StatusForbidden},
		{"rotate another's secret", "POST", "/api/partners/acme/secrets/rotate", "", http.StatusForbidden},
		{"test another's subscriptions", "POST", "/api/partners/acme/subscriptions/test", "", http.StatusForbidden},
		{"resend another's dead letters", "POST", "/api/partners/acme/requeue", "", http.StatusForbidden},
		{"send another a test", "POST", "/api/partners/acme/test", "", http.StatusForbidden},
		{"a partner that does not exist", "GET", "/api/partners/nobody", "", http.StatusForbidden},
	} {
		t.Run(c.name, func(t *testing.T) {
			resp := s.call(t, c.method, c.path, c.body, zeta...)
			require.Equal(t, c.status, resp.status, resp.body)
			if c.status == http.StatusForbidden {
				assert.Equal(t, "forbidden", resp.body["error"].(map[string]any)["code"], resp.body)
			}
		})
	}
	got, err := s.registry.Get(t.Context(), "acme")
	require.NoError(t, err)
	assert.Equal(t, "https://acme.example/in", got.URL, "another partner's url unchanged")
	got, err = s.registry.Get(t.Context(), "zeta")
	require.NoError(t, err)
	assert.Equal(t, "https://zeta.example/v3", got.URL)
	assert.Equal(t, []string{"email"}, got.ClearPersonalData, "what the operator set stays")
	assert.Len(t, got.Secrets, 2, "rotated: the new secret and the old one in its overlap")
}
