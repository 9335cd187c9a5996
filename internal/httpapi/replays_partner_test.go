package httpapi_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/internal/fanout"
	"github.com/streamops/streamops/internal/history"
	"github.com/streamops/streamops/internal/httpapi"
	"github.com/streamops/streamops/internal/testenv"
)

// TestReplayToAPartnerIsCheckedAndStoredWithItsPartner: POST
// /api/replays with a partnerId starts a session aimed at that partner;
// an unknown partner, a partner with a target topic, and an API whose
// replayer cannot enqueue for partners are refused before anything is
// stored.
func TestReplayToAPartnerIsCheckedAndStoredWithItsPartner(t *testing.T) {
	env := testenv.New(t, testenv.Options{})
	partners := fanout.Static{"acme": {{EventTypes: []string{"workflow.*"}}}}
	fo, err := fanout.New(partners, env.Logger)
	require.NoError(t, err)
	api := func(r *history.Replayer) *apiStack {
		return &apiStack{Env: env, handler: httpapi.API(httpapi.APIConfig{Store: env.Store, Logger: env.Logger, Replayer: r,
			Subscriptions: partners, Auth: httpapi.TokenAuth{AdminToken: adminToken}})}
	}
	s := api(&history.Replayer{Store: env.Store, Emitter: env.Emitter, Partners: fo, Logger: env.Logger})
	filter := `"filter":{"event_types":["workflow.completed"]}`

	for _, c := range []struct {
		name, body string
		s          *apiStack
		status     int
		code       string
	}{
		{"a partner the directory does not hold", `{` + filter + `,"partnerId":"nobody"}`, s, http.StatusNotFound, "partner_not_found"},
		{"a partner and a topic", `{` + filter + `,"partnerId":"acme","targetTopic":"workflows"}`, s, http.StatusBadRequest, "invalid_parameter"},
		{"a replayer without partner fan-out", `{` + filter + `,"partnerId":"acme"}`,
			api(&history.Replayer{Store: env.Store, Emitter: env.Emitter, Logger: env.Logger}), http.StatusNotImplemented, "no_partner_fanout"},
	} {
		t.Run(c.name, func(t *testing.T) {
			resp := c.s.call(t, "POST", "/api/replays", c.body)
			require.Equal(t, c.status, resp.status, resp.body)
			assert.Equal(t, c.code, resp.body["error"].(map[string]any)["code"])
		})
	}
	list := s.call(t, "GET", "/api/replays", "")
	require.Equal(t, http.StatusOK, list.status)
	assert.Empty(t, list.body["replays"], "nothing was stored")

	resp := s.call(t, "POST", "/api/replays", `{`+filter+`,"partnerId":"acme"}`)
	require.Equal(t, http.StatusAccepted, resp.status, resp.body)
	assert.Equal(t, "acme", resp.body["config"].(map[string]any)["partner_id"])
}
