package apigw

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/assert"

	"github.com/streamops/streamops/internal/httpapi"
)

// TestJWTPrincipalIsTheTokensSubject: on AWS the principal is the JWT's
// sub (client_id when a client-credentials token has none), its role the
// scope or the partner_id claim; a token naming nobody, or no role, and a
// request without a JWT authorizer are not recognised.
func TestJWTPrincipalIsTheTokensSubject(t *testing.T) {
	tests := []struct {
		name   string
		claims map[string]string
		want   httpapi.Principal
		ok     bool
	}{
		{"admin user", map[string]string{"sub": "3f1c-user", "scope": "openid streamops/admin"},
			httpapi.Principal{ID: "3f1c-user", Admin: true}, true},
		{"client credentials", map[string]string{"client_id": "7abc-client", "scope": "streamops/admin"},
			httpapi.Principal{ID: "7abc-client", Admin: true}, true},
		{"sub wins over client_id", map[string]string{"sub": "s", "client_id": "c", "scope": "streamops/admin"},
			httpapi.Principal{ID: "s", Admin: true}, true},
		{"partner", map[string]string{"sub": "acme-integration", "partner_id": "acme"},
			httpapi.Principal{ID: "acme-integration", PartnerID: "acme"}, true},
		{"no subject", map[string]string{"scope": "streamops/admin"}, httpapi.Principal{}, false},
		{"no role", map[string]string{"sub": "someone", "scope": "openid"}, httpapi.Principal{}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rc := events.APIGatewayV2HTTPRequestContext{Authorizer: &events.APIGatewayV2HTTPRequestContextAuthorizerDescription{
				JWT: &events.APIGatewayV2HTTPRequestContextAuthorizerJWTDescription{Claims: tc.claims}}}
			r := httptest.NewRequest("GET", "/api/me", nil)
			r = r.WithContext(context.WithValue(r.Context(), requestContextKey{}, rc))
			p, ok := JWTAuth{}.Authenticate(r)
			assert.Equal(t, tc.ok, ok)
			assert.Equal(t, tc.want, p)
		})
	}
	_, ok := JWTAuth{}.Authenticate(httptest.NewRequest("GET", "/api/me", nil))
	assert.False(t, ok, "no authorizer: another authenticator decides")
}
