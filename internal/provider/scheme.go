package provider

import (
	"net/http"
	"time"
)

// Scheme names how a provider signs its deliveries.
type Scheme string

// scheme is everything StreamOps knows about one signature scheme. Each
// scheme's file (stripe.go, github.go, standard.go, hmac.go) defines its
// entry; schemes lists them.
type scheme struct {
	// name is the scheme's Signature.Scheme.
	name Scheme
	// verify checks a delivery signed with one of secrets (Verify).
	verify func(p *Provider, h http.Header, body []byte, secrets []string, now time.Time) error
	// sign sets the signature headers the scheme's sender would send
	// (Sign; secret is trimmed and not empty).
	sign func(p *Provider, h http.Header, secret string, body []byte, opts SignOptions) error
	// eventID and eventType are where the scheme's sender puts the event id
	// and type: the defaults of Provider.EventID and EventType. Zero: the
	// configuration must name them.
	eventID, eventType Field
	// configure, when set, fills the defaults of the scheme's own
	// Signature options (header, encoding, prefix); check validates them.
	// A scheme without check takes none of them.
	configure func(s *Signature)
	check     func(s Signature, field string, errs *configErrors)
	// header, when set, maps a header name the configuration gives to the
	// one a delivery carries (Standard Webhooks' svix-* aliases).
	header func(h http.Header, name string) string
	// formField, when set, is the form field a sender posting
	// application/x-www-form-urlencoded puts the event's JSON in (Document).
	formField string
}

// schemes are the signature schemes Verify and Sign understand, in the
// order configuration errors list them: the one list of them. Everything
// that depends on the scheme (defaults, validation, verification, signing,
// identification, the body's form) looks it up here.
var schemes = []scheme{
	stripeScheme,
	githubScheme,
	standardScheme,
	hmacScheme,
}

// lookupScheme returns the entry of the scheme called name.
func lookupScheme(name Scheme) (scheme, bool) {
	for _, s := range schemes {
		if s.name == name {
			return s, true
		}
	}
	return scheme{}, false
}

// SchemeNames lists the signature schemes a provider may use, in order.
func SchemeNames() []string {
	names := make([]string, len(schemes))
	for i, s := range schemes {
		names[i] = string(s.name)
	}
	return names
}
