package provider

import (
	"net/http"
	"time"
)

// Scheme names how a provider signs its deliveries.
type Scheme string

// scheme is everything StreamOps knows about one signature scheme: its
// entry in schemes, pointing at the functions of the scheme's own file
// (stripe.go, github.go, standard.go, hmac.go).
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
	// Stripe signs "<t>.<body>"; the event id and type are in the body.
	{name: SchemeStripe, verify: (*Provider).verifyStripe, sign: (*Provider).signStripe,
		eventID: Field{Path: "id"}, eventType: Field{Path: "type"}},
	// GitHub signs the body; the event id and type are headers, and a
	// webhook may post the event as the form field "payload".
	{name: SchemeGitHub, verify: (*Provider).verifyGitHub, sign: (*Provider).signGitHub,
		eventID: Field{Header: githubDeliveryHeader}, eventType: Field{Header: githubEventHeader}, formField: githubFormField},
	// Standard Webhooks signs "<id>.<timestamp>.<body>"; the id is the
	// webhook-id (or svix-id) header, the type in the body.
	{name: SchemeStandard, verify: (*Provider).verifyStandard, sign: (*Provider).signStandardDelivery,
		eventID: Field{Header: standardIDHeader}, eventType: Field{Path: "type"}, header: standardAlias},
	// Plain HMAC: the header, encoding and prefix are the provider's, and
	// so are where the event id and type are.
	{name: SchemeHMAC, verify: (*Provider).verifyHMAC, sign: (*Provider).signHMAC, configure: configureHMAC, check: checkHMAC},
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
