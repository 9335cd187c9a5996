package main

import (
	"net/http/httptest"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/internal/httpapi"
	"github.com/streamops/streamops/internal/partners"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/testenv"
	"github.com/streamops/streamops/internal/vault"
)

// TestOpsPartnersManageAPartnerThroughTheAPI: create prints the secret
// once, update changes only the flags given, rotate prints the new secret
// and when the old stop, disable/enable and delete say what they did; bad
// usage is refused before any request and API errors name the field.
func TestOpsPartnersManageAPartnerThroughTheAPI(t *testing.T) {
	env := testenv.New(t, testenv.Options{})
	vlt, err := vault.NewInMemory(env.Store)
	require.NoError(t, err)
	reg, err := partners.New(partners.Config{Store: env.Store, Wrapper: vlt.Wrapper(), Logger: env.Logger})
	require.NoError(t, err)
	srv := httptest.NewServer(httpapi.API(httpapi.APIConfig{Store: env.Store, Logger: env.Logger, Registry: reg,
		Auth: httpapi.TokenAuth{AdminToken: token}}))
	t.Cleanup(srv.Close)
	a := &api{Env: env, srv: srv}
	_, err = env.Store.EnqueueOutbox(t.Context(), store.OutboxEntry{OutboxID: "z-1", TargetProvider: "zeta", Payload: store.JSONDoc(`{}`)})
	require.NoError(t, err)

	secret := regexp.MustCompile(`whsec_[A-Za-z0-9+/=]+`)
	var shown []string
	for _, tc := range []struct {
		name string
		args []string
		code int
		out  string // a regexp stdout matches
		err  string // a regexp stderr matches, on failure
	}{
		{"create", []string{"partners", "create", "zeta", "-endpoint", "https://zeta.example/in", "-name", "Zeta", "-max-in-flight", "2",
			"-subscriptions", `[{"eventTypes":["workflow.completed"],"filter":{"payload.name":"Nightly"}}]`}, 0,
			`^zeta https://zeta.example/in version 1: delivering, 1 live signing secret\(s\)\nsecret    whsec_\S+ \(id sec_[0-9a-f]+\): shown this once, store it now\n$`, ""},
		{"create again", []string{"partners", "create", "zeta", "-endpoint", "https://zeta.example/in"}, 1, `^$`, `409 partner_exists`},
		{"create without an endpoint", []string{"partners", "create", "eta"}, 1, `^$`, `400 validation_failed.*\(field url\)`},
		{"update the endpoint, clear the limit", []string{"partners", "update", "zeta", "-endpoint", "https://zeta.example/v2", "-max-in-flight", "none"}, 0,
			`^zeta https://zeta.example/v2 version 2: delivering`, ""},
		{"update at a stale version", []string{"partners", "update", "zeta", "-name", "Zeta AG", "-version", "1"}, 1, `^$`, `409 version_conflict`},
		{"update nothing", []string{"partners", "update", "zeta"}, 1, `^$`, `nothing to change`},
		{"update with a bad limit", []string{"partners", "update", "zeta", "-rate-limit", "fast"}, 1, `^$`, `-rate-limit "fast" is not a number`},
		{"rotate", []string{"partners", "rotate", "zeta", "-overlap", "1h"}, 0,
			`version 3: delivering, 2 live signing secret\(s\)\nsecret    whsec_\S+ .*\nold       the older secrets sign until \S+\n$`, ""},
		{"rotate with a bad overlap", []string{"partners", "rotate", "zeta", "-overlap", "soon"}, 1, `^$`, `400 validation_failed.*\(field overlap\)`},
		{"disable", []string{"partners", "disable", "zeta", "-reason", "migration"}, 0, `^zeta \S+ version 4: disabled by admin \(migration\)`, ""},
		{"enable", []string{"partners", "enable", "zeta"}, 0, `version 5: delivering`, ""},
		{"delete", []string{"partners", "delete", "zeta"}, 0, `^zeta deleted: 1 waiting deliveries cancelled`, ""},
		{"delete again", []string{"partners", "delete", "zeta"}, 1, `^$`, `404 partner_not_found`},
		{"no id", []string{"partners", "enable"}, 1, `^$`, `name one partner id`},
		{"an unknown subcommand", []string{"partners", "list"}, 1, `^$`, `test, subscriptions, create, update, rotate`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := a.ops(t, "", tc.args...)
			require.Equal(t, tc.code, code, "stdout %s\nstderr %s", out, errOut)
			assert.Regexp(t, tc.out, out)
			if tc.err != "" {
				assert.Regexp(t, tc.err, errOut)
			}
			shown = append(shown, secret.FindAllString(out+errOut, -1)...)
		})
	}
	require.Len(t, shown, 2, "the create's and the rotation's secret, each once")
	assert.NotEqual(t, shown[0], shown[1])
}
