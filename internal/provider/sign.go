package provider

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// SignOptions are what a sender knows besides the body and secret.
type SignOptions struct {
	// Now is the signing time (stripe and standard sign it). Default
	// time.Now().
	Now time.Time
	// ID is the delivery's event id, sent in the provider's event-id header
	// when it has one (X-GitHub-Delivery, webhook-id; for standard it is
	// also signed, so it is required there). Providers that carry the id in
	// the body ignore it.
	ID string
	// EventType is sent in the provider's event-type header when it has one
	// (X-GitHub-Event). Providers that carry the type in the body ignore it.
	EventType string
}

// Sign returns the headers a real sender of p would send with body, signed
// with secret: the signature headers, the event id and type headers the
// provider reads (see SignOptions) and Content-Type. Tests sign fixtures
// with it, and the local stack prints ready-to-paste curl commands.
func (p *Provider) Sign(body []byte, secret string, opts SignOptions) (http.Header, error) {
	secret = strings.TrimSpace(secret)
	if secret == "" {
		return nil, errors.New("webhook: sign: empty secret")
	}
	if opts.Now.IsZero() {
		opts.Now = time.Now()
	}
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	if opts.ID != "" && p.EventID.Header != "" {
		h.Set(p.EventID.Header, opts.ID)
	}
	if opts.EventType != "" && p.EventType.Header != "" {
		h.Set(p.EventType.Header, opts.EventType)
	}
	sc, ok := lookupScheme(p.Signature.Scheme)
	if !ok {
		return nil, fmt.Errorf("webhook: sign: unknown signature scheme %q", p.Signature.Scheme)
	}
	if err := sc.sign(p, h, secret, body, opts); err != nil {
		return nil, err
	}
	return h, nil
}

// SignStandard returns the Standard Webhooks headers (webhook-id,
// webhook-timestamp, webhook-signature) and Content-Type for an outbound
// delivery of body with id, signed at now with every secret in secrets
// ("whsec_<base64>" each): one webhook-signature header holding one
// space-separated "v1,<base64>" entry per secret, in the order given, so
// while a partner rotates its secret either one verifies the delivery.
// Every configured secret signs: a third one (a rotation rolled back
// while the next began) is as valid as the first two. Blank entries are
// skipped; none left, or one that is not a Standard Webhooks secret,
// refuses the whole delivery naming the secret's position (never its
// value), as a half-signed delivery would hide the misconfiguration
// until the partner switched. The outbox relay signs partner deliveries
// with it.
func SignStandard(body []byte, secrets []string, id string, now time.Time) (http.Header, error) {
	var keys [][]byte
	for i, s := range secrets {
		if strings.TrimSpace(s) == "" {
			continue
		}
		key, err := standardKey(s)
		if err != nil {
			return nil, fmt.Errorf("webhook: sign: secret %d of %d: %w", i+1, len(secrets), err)
		}
		keys = append(keys, key)
	}
	if len(keys) == 0 {
		return nil, errors.New("webhook: sign: empty secret")
	}
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	signStandard(h, keys, id, body, now)
	return h, nil
}
