package apigw

import (
	"net/http"
	"strings"

	"github.com/streamops/streamops/internal/httpapi"
)

// JWTAuth reads the principal from the claims of API Gateway's JWT
// authorizer (the token was verified before the function ran): a "scope"
// containing "streamops/admin" is an admin; a "partner_id" claim scopes the
// caller to that partner. Requests that did not pass a JWT authorizer are
// not recognised, so a bearer-token authenticator may decide instead.
type JWTAuth struct{}

// Authenticate implements httpapi.Authenticator.
func (JWTAuth) Authenticate(r *http.Request) (httpapi.Principal, bool) {
	rc, ok := RequestContext(r.Context())
	if !ok || rc.Authorizer == nil || rc.Authorizer.JWT == nil {
		return httpapi.Principal{}, false
	}
	claims := rc.Authorizer.JWT.Claims
	for _, s := range strings.Fields(claims["scope"]) {
		if s == "streamops/admin" {
			return httpapi.Principal{Admin: true}, true
		}
	}
	if p := claims["partner_id"]; p != "" {
		return httpapi.Principal{PartnerID: p}, true
	}
	return httpapi.Principal{}, false
}
