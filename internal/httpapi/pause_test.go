package httpapi_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/httpapi"
	"github.com/streamops/streamops/internal/opsevents"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/testenv"
)

// TestPauseAndResumeAnswerTheEndpointAndEmitOncePerChange: each request
// of the table answers its status and code; a pause or resume that
// changed the state emits one operational event, one that did not emits
// none; a partner token, an unknown partner and a bad body change nothing.
func TestPauseAndResumeAnswerTheEndpointAndEmitOncePerChange(t *testing.T) {
	env := testenv.New(t, testenv.Options{})
	partners := map[string]httpapi.PartnerConfig{"ghost": {ID: "ghost", Name: "Ghost", // inbound webhooks only
		Webhooks: []httpapi.PartnerWebhook{{Provider: "ghost", SignatureScheme: "hmac"}}}}
	for id, c := range testPartners {
		partners[id] = c
	}
	s := &apiStack{Env: env, handler: httpapi.API(httpapi.APIConfig{Store: env.Store, Logger: env.Logger, Partners: partners,
		Operations: opsevents.New(env.Emitter, env.Logger),
		Auth: httpapi.TokenAuth{AdminToken: adminToken, PartnerTokens: map[string]string{"acme-token": "acme"},
			Tokens: map[string]httpapi.Principal{"alice-token": httpapi.AdminPrincipal("alice")}}})}
	_, err := env.Store.EnqueueOutbox(t.Context(), store.OutboxEntry{OutboxID: "out-1", TargetProvider: "acme", Payload: store.JSONDoc(`{}`)},
		store.OutboxEntry{OutboxID: "out-2", TargetProvider: "acme", Payload: store.JSONDoc(`{}`)})
	require.NoError(t, err)

	for _, tc := range []struct {
		name, path, body string
		token            string
		status           int
		code             string // error code; "" for a 200
		paused           bool   // the state after (200 only)
		pausedBy, reason string
		events           []events.Type // the operational events emitted so far
	}{
		{name: "a partner token may not pause, even its own partner", path: "acme/pause", token: "acme-token",
			status: http.StatusForbidden, code: "forbidden"},
		{name: "a partner the partners file does not name", path: "beta/pause", status: http.StatusNotFound, code: "partner_not_found"},
		{name: "a partner known only from its webhooks is not in the partners file", path: "ghost/pause", status: http.StatusNotFound, code: "partner_not_found"},
		{name: "a body that is not JSON", path: "acme/pause", body: `{"reason":`, status: http.StatusBadRequest, code: "invalid_payload"},
		{name: "an unknown field", path: "acme/pause", body: `{"reason":"x","until":"14:00"}`, status: http.StatusBadRequest, code: "invalid_payload"},
		{name: "a reason too long", path: "acme/pause", body: `{"reason":"` + strings.Repeat("x", httpapi.MaxPauseReason+1) + `"}`,
			status: http.StatusBadRequest, code: "validation_failed"},
		{name: "resuming a partner not paused changes nothing", path: "acme/resume", status: http.StatusOK},
		{name: "the first pause", path: "acme/pause", body: `{"reason":"maintenance"}`, token: "alice-token", status: http.StatusOK,
			paused: true, pausedBy: "alice", reason: "maintenance", events: []events.Type{events.PartnerPaused}},
		{name: "pausing twice keeps the first pause and emits nothing", path: "acme/pause", body: `{"reason":"again"}`, status: http.StatusOK,
			paused: true, pausedBy: "alice", reason: "maintenance", events: []events.Type{events.PartnerPaused}},
		{name: "resume", path: "acme/resume", body: `{}`, status: http.StatusOK,
			pausedBy: "alice", reason: "maintenance", events: []events.Type{events.PartnerPaused, events.PartnerResumed}},
		{name: "resuming twice emits nothing", path: "acme/resume", status: http.StatusOK,
			pausedBy: "alice", reason: "maintenance", events: []events.Type{events.PartnerPaused, events.PartnerResumed}},
		{name: "resume takes no field", path: "acme/resume", body: `{"reason":"x"}`, status: http.StatusBadRequest, code: "invalid_payload",
			events: []events.Type{events.PartnerPaused, events.PartnerResumed}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			headers := []string{}
			if tc.token != "" {
				headers = append(headers, "Authorization", "Bearer "+tc.token)
			}
			resp := s.call(t, http.MethodPost, "/api/partners/"+tc.path, tc.body, headers...)
			require.Equal(t, tc.status, resp.status, resp.body)
			if tc.code != "" {
				assert.Equal(t, tc.code, resp.body["error"].(map[string]any)["code"])
			} else {
				assert.Equal(t, tc.paused, resp.body["paused"])
				assert.Equal(t, tc.pausedBy, valueOr(resp.body["pausedBy"]))
				assert.Equal(t, tc.reason, valueOr(resp.body["pauseReason"]))
				backlog := resp.body["backlog"].(map[string]any)
				assert.EqualValues(t, 2, backlog["count"], "the two waiting entries")
				assert.NotNil(t, backlog["oldestCreatedAt"])
			}
			got := s.endpoint(t)
			assert.Equal(t, tc.paused, got["paused"], "GET …/endpoint shows the state")
			var emitted []events.Type
			for _, env := range s.Envelopes(t, events.TopicOperations) {
				emitted = append(emitted, env.EventType)
				assert.Equal(t, "acme", env.Metadata.PartnerID)
			}
			assert.Equal(t, tc.events, emitted)
		})
	}
	for _, env := range s.Envelopes(t, events.TopicOperations) {
		if env.EventType == events.PartnerResumed {
			resumed, err := events.PayloadAs[events.PartnerResumedPayload](env)
			require.NoError(t, err)
			assert.NotNil(t, resumed.PausedAt, "the resume names the pause it ended")
			assert.Equal(t, "admin", resumed.By)
			assert.Equal(t, 2, resumed.Backlog)
		}
	}
	list := s.call(t, http.MethodGet, "/api/partners", "")
	require.Equal(t, http.StatusOK, list.status)
	for _, p := range list.body["partners"].([]any) {
		v := p.(map[string]any)
		assert.Contains(t, v, "paused", v["partnerId"])
		assert.Contains(t, v, "backlog", v["partnerId"])
	}
}

// endpoint is GET /api/partners/acme/endpoint's answer.
func (s *apiStack) endpoint(t *testing.T) map[string]any {
	resp := s.call(t, http.MethodGet, "/api/partners/acme/endpoint", "")
	require.Equal(t, http.StatusOK, resp.status, resp.body)
	return resp.body
}

func valueOr(v any) string {
	s, _ := v.(string)
	return s
}
