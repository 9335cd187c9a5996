package httpapi

import (
	"crypto/subtle"
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// Roles a principal has (GET /api/me's "role").
const (
	RoleAdmin   = "admin"
	RolePartner = "partner"
)

// AdminTokenName is the principal of STREAMOPS_ADMIN_TOKEN, the one
// unnamed admin token.
const AdminTokenName = "admin"

// partnerIDPrefix starts the id of a partner token's principal; an admin's
// name has no ":" (checkName), so it never names a partner's.
const partnerIDPrefix = "partner:"

// Principal is who a request acts for: an admin sees everything, a partner
// only its own events and partner events. ID names it: every event the
// request causes carries it as metadata.userId.
type Principal struct {
	// ID is the token's name ("admin", "partner:acme", …) or, on AWS, the
	// JWT's subject. Never empty for an authenticated request.
	ID        string
	Admin     bool
	PartnerID string
}

// Role is RoleAdmin or RolePartner.
func (p Principal) Role() string {
	if p.Admin {
		return RoleAdmin
	}
	return RolePartner
}

// AdminPrincipal is the admin named name.
func AdminPrincipal(name string) Principal { return Principal{ID: name, Admin: true} }

// PartnerPrincipal is a token of partnerID: "partner:<partnerID>", or
// "partner:<partnerID>:<name>" when the token is named, so two tokens of
// one partner (a rotation, a second system) are told apart.
func PartnerPrincipal(partnerID, name string) Principal {
	id := partnerIDPrefix + partnerID
	if name != "" {
		id += ":" + name
	}
	return Principal{ID: id, PartnerID: partnerID}
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

// TokenAuth checks bearer tokens against configured secrets in constant
// time. Every token is a named principal (ParseTokens reads the
// configuration); AdminToken and PartnerTokens are shorthands for tests.
type TokenAuth struct {
	// AdminToken grants everything, as the principal "admin". Empty
	// disables it.
	AdminToken string
	// PartnerTokens maps a token to the partner id it is scoped to, as the
	// principal "partner:<id>".
	PartnerTokens map[string]string
	// Tokens maps a token to the principal it authenticates.
	Tokens map[string]Principal
}

// Authenticate implements Authenticator.
func (a TokenAuth) Authenticate(r *http.Request) (Principal, bool) {
	token, ok := bearer(r)
	if !ok {
		return Principal{}, false
	}
	match := func(secret string) bool {
		return secret != "" && subtle.ConstantTimeCompare([]byte(token), []byte(secret)) == 1
	}
	if match(a.AdminToken) {
		return AdminPrincipal(AdminTokenName), true
	}
	for t, partner := range a.PartnerTokens {
		if match(t) {
			return PartnerPrincipal(partner, ""), true
		}
	}
	for t, p := range a.Tokens {
		if match(t) {
			return p, true
		}
	}
	return Principal{}, false
}

// TokenConfig is the bearer-token configuration of the api function, as
// the environment gives it.
type TokenConfig struct {
	// AdminToken (STREAMOPS_ADMIN_TOKEN) is one admin token, named "admin".
	AdminToken string
	// AdminTokens (STREAMOPS_ADMIN_TOKENS) are "name=token,…": admin
	// tokens, each the principal of its name.
	AdminTokens string
	// PartnerTokens (STREAMOPS_PARTNER_TOKENS) are "partnerId=token,…" or
	// "partnerId:name=token,…": tokens scoped to a partner, each the
	// principal "partner:<partnerId>" or "partner:<partnerId>:<name>".
	PartnerTokens string
}

// ParseTokens reads c into a TokenAuth. A malformed entry, a name that
// is not a plain word (checkName), or one token
// given to two principals is an error naming the variable and the entry's
// position, never its token; one name may hold several tokens (rotation).
func ParseTokens(c TokenConfig) (TokenAuth, error) {
	auth := TokenAuth{Tokens: map[string]Principal{}}
	add := func(variable string, i int, token string, p Principal) error {
		if prev, dup := auth.Tokens[token]; dup && prev != p {
			return fmt.Errorf("%s: entry %d: its token is already %q's: every token names one principal", variable, i+1, prev.ID)
		}
		auth.Tokens[token] = p
		return nil
	}
	if t := strings.TrimSpace(c.AdminToken); t != "" {
		if err := add("STREAMOPS_ADMIN_TOKEN", 0, t, AdminPrincipal(AdminTokenName)); err != nil {
			return TokenAuth{}, err
		}
	}
	var errs []error
	entries := func(variable, list string, principal func(name string) (Principal, error)) {
		if strings.TrimSpace(list) == "" {
			return
		}
		for i, entry := range strings.Split(list, ",") {
			name, token, ok := strings.Cut(strings.TrimSpace(entry), "=")
			name, token = strings.TrimSpace(name), strings.TrimSpace(token)
			if !ok || name == "" || token == "" {
				errs = append(errs, fmt.Errorf("%s: entry %d is not name=token", variable, i+1))
				continue
			}
			p, err := principal(name)
			if err == nil {
				err = add(variable, i, token, p)
			}
			if err != nil {
				errs = append(errs, fmt.Errorf("%s: entry %d: %w", variable, i+1, err))
			}
		}
	}
	entries("STREAMOPS_ADMIN_TOKENS", c.AdminTokens, func(name string) (Principal, error) {
		return AdminPrincipal(name), checkName(name)
	})
	entries("STREAMOPS_PARTNER_TOKENS", c.PartnerTokens, func(name string) (Principal, error) {
		partner, tokenName, named := strings.Cut(name, ":")
		err := checkName(partner)
		if err == nil && named {
			err = checkName(tokenName)
		}
		return PartnerPrincipal(partner, tokenName), err
	})
	if err := errors.Join(errs...); err != nil {
		return TokenAuth{}, err
	}
	return auth, nil
}

// checkName admits a principal's name: letters, digits and . _ - @ (no
// spaces or separators such as ":", so it reads the same in an event and a
// filter, and an admin's name never looks like a partner token's).
func checkName(name string) error {
	if name == "" {
		return errors.New("a name is empty")
	}
	for _, r := range name {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', strings.ContainsRune("._-@", r):
		default:
			return fmt.Errorf("the name %q may hold only letters, digits and . _ - @", name)
		}
	}
	return nil
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
