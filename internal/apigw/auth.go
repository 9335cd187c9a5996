package apigw

import (
	"net/http"
	"strings"

	"github.com/streamops/streamops/internal/httpapi"
)

// JWTAuth reads the principal from the claims of API Gateway's JWT
// authorizer (the token was verified before the function ran): a "scope"
// containing "streamops/admin" is an admin; a "partner_id" claim scopes the
// caller to that partner. The principal's id is the "sub" claim (the user,
// or the app client of a client-credentials token, whose sub Cognito sets
// to the client id), else "client_id"; a token with neither names nobody
// and is not recognised. Requests that did not pass a JWT authorizer are
// not recognised either, so a bearer-token authenticator may decide
// instead.
type JWTAuth struct{}

// Authenticate implements httpapi.Authenticator.
func (JWTAuth) Authenticate(r *http.Request) (httpapi.Principal, bool) {
	rc, ok := RequestContext(r.Context())
	if !ok || rc.Authorizer == nil || rc.Authorizer.JWT == nil {
		return httpapi.Principal{}, false
	}
	claims := rc.Authorizer.JWT.Claims
	id := claims["sub"]
	if id == "" {
		id = claims["client_id"]
	}
	if id == "" {
		return httpapi.Principal{}, false
	}
	for s := range strings.FieldsSeq(claims["scope"]) {
		if s == "streamops/admin" {
			return httpapi.Principal{ID: id, Admin: true}, true
		}
	}
	if p := claims["partner_id"]; p != "" {
		return httpapi.Principal{ID: id, PartnerID: p}, true
	}
	return httpapi.Principal{}, false
}
