package httpapi_test

import (
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/internal/httpapi"
)

// TestEveryTokenIsANamedPrincipal: each configured token authenticates as
// the principal its configuration names, admin and partner tokens alike;
// STREAMOPS_ADMIN_TOKEN keeps working as the admin named "admin".
func TestEveryTokenIsANamedPrincipal(t *testing.T) {
	auth, err := httpapi.ParseTokens(httpapi.TokenConfig{
		AdminToken:    "tok-root",
		AdminTokens:   "alice=tok-alice, ci-bot=tok-ci,alice=tok-alice-next",
		PartnerTokens: "acme=tok-acme,acme:billing=tok-acme-billing,beta=tok-beta",
	})
	require.NoError(t, err)
	tests := []struct {
		token string
		want  httpapi.Principal
		role  string
	}{
		{"tok-root", httpapi.Principal{ID: "admin", Admin: true}, httpapi.RoleAdmin},
		{"tok-alice", httpapi.Principal{ID: "alice", Admin: true}, httpapi.RoleAdmin},
		{"tok-alice-next", httpapi.Principal{ID: "alice", Admin: true}, httpapi.RoleAdmin},
		{"tok-ci", httpapi.Principal{ID: "ci-bot", Admin: true}, httpapi.RoleAdmin},
		{"tok-acme", httpapi.Principal{ID: "partner:acme", PartnerID: "acme"}, httpapi.RolePartner},
		{"tok-acme-billing", httpapi.Principal{ID: "partner:acme:billing", PartnerID: "acme"}, httpapi.RolePartner},
		{"tok-beta", httpapi.Principal{ID: "partner:beta", PartnerID: "beta"}, httpapi.RolePartner},
	}
	for _, tc := range tests {
		t.Run(tc.token, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/api/me", nil)
			r.Header.Set("Authorization", "Bearer "+tc.token)
			p, ok := auth.Authenticate(r)
			require.True(t, ok)
			assert.Equal(t, tc.want, p)
			assert.Equal(t, tc.role, p.Role())
		})
	}
	r := httptest.NewRequest("GET", "/api/me", nil)
	r.Header.Set("Authorization", "Bearer tok-unknown")
	_, ok := auth.Authenticate(r)
	assert.False(t, ok, "an unknown token is nobody")
}

// TestMalformedTokenListsAreRefusedNamingTheEntry: a list the api function
// cannot read unambiguously fails its start, naming the variable and the
// entry, never the token.
func TestMalformedTokenListsAreRefusedNamingTheEntry(t *testing.T) {
	tests := []struct {
		name string
		cfg  httpapi.TokenConfig
		want string
	}{
		{"admin entry without a token", httpapi.TokenConfig{AdminTokens: "alice="}, "STREAMOPS_ADMIN_TOKENS: entry 1 is not name=token"},
		{"admin entry without a name", httpapi.TokenConfig{AdminTokens: "alice=a,=s3cret"}, "STREAMOPS_ADMIN_TOKENS: entry 2 is not name=token"},
		{"admin name with a space", httpapi.TokenConfig{AdminTokens: "al ice=s3cret"}, `STREAMOPS_ADMIN_TOKENS: entry 1: the name "al ice"`},
		{"admin name that looks like a partner's", httpapi.TokenConfig{AdminTokens: "partner:acme=s3cret"}, `the name "partner:acme"`},
		{"partner entry without a partner", httpapi.TokenConfig{PartnerTokens: ":billing=s3cret"}, "STREAMOPS_PARTNER_TOKENS: entry 1: a name is empty"},
		{"partner token name empty", httpapi.TokenConfig{PartnerTokens: "acme:=s3cret"}, "STREAMOPS_PARTNER_TOKENS: entry 1: a name is empty"},
		{"one token, two principals", httpapi.TokenConfig{AdminToken: "s3cret", PartnerTokens: "acme=s3cret"},
			`STREAMOPS_PARTNER_TOKENS: entry 1: its token is already "admin"'s`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := httpapi.ParseTokens(tc.cfg)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			assert.NotContains(t, err.Error(), "s3cret", "the token is never in the message")
		})
	}
	auth, err := httpapi.ParseTokens(httpapi.TokenConfig{})
	require.NoError(t, err, "no tokens at all: nobody is admitted, which is not an error")
	assert.Empty(t, auth.Tokens)
}
