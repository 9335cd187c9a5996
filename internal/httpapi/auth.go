package httpapi

import (
	"crypto/subtle"
	"errors"
	"net/http"
	"strings"
)

// Principal is who a request acts for: an admin sees everything, a partner
// only its own events and partner events.
type Principal struct {
	Admin     bool
	PartnerID string
}

// Authentication errors: 401 and 403.
var (
	ErrUnauthenticated = errors.New("missing or unknown bearer token: send Authorization: Bearer <token>")
	ErrForbidden       = errors.New("this token's scope does not cover this resource")
)

// Authenticator identifies a request's principal. ok is false when it does
// not recognise the request at all (so another authenticator may).
type Authenticator interface {
	Authenticate(r *http.Request) (p Principal, ok bool)
}

// TokenAuth checks bearer tokens against configured secrets
// (STREAMOPS_ADMIN_TOKEN, STREAMOPS_PARTNER_TOKENS) in constant time.
type TokenAuth struct {
	// AdminToken grants everything. Empty disables admin tokens.
	AdminToken string
	// PartnerTokens maps a token to the partner id it is scoped to.
	PartnerTokens map[string]string
}

// Authenticate implements Authenticator.
func (a TokenAuth) Authenticate(r *http.Request) (Principal, bool) {
	token, ok := bearer(r)
	if !ok {
		return Principal{}, false
	}
	if a.AdminToken != "" && subtle.ConstantTimeCompare([]byte(token), []byte(a.AdminToken)) == 1 {
		return Principal{Admin: true}, true
	}
	for t, partner := range a.PartnerTokens {
		if subtle.ConstantTimeCompare([]byte(token), []byte(t)) == 1 {
			return Principal{PartnerID: partner}, true
		}
	}
	return Principal{}, false
}

// ParsePartnerTokens reads "partnerId=token,partnerId=token".
func ParsePartnerTokens(s string) map[string]string {
	out := map[string]string{}
	for pair := range strings.SplitSeq(s, ",") {
		partner, token, ok := strings.Cut(strings.TrimSpace(pair), "=")
		if ok && partner != "" && token != "" {
			out[token] = partner
		}
	}
	return out
}

func bearer(r *http.Request) (string, bool) {
	h := r.Header.Get("Authorization")
	scheme, token, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(token) == "" {
		return "", false
	}
	return strings.TrimSpace(token), true
}

// Authenticators tries each in order; the first that recognises the
// request decides.
type Authenticators []Authenticator

// Authenticate implements Authenticator.
func (as Authenticators) Authenticate(r *http.Request) (Principal, bool) {
	for _, a := range as {
		if p, ok := a.Authenticate(r); ok {
			return p, true
		}
	}
	return Principal{}, false
}
