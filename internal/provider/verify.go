package provider

import (
	"crypto/hmac"
	"crypto/sha256"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Tolerance is how far a signed timestamp may lie from now, either way: an
// older one is a replay, a newer one a forgery or a broken clock. Five
// minutes is Stripe's and the Standard Webhooks spec's default.
const Tolerance = 5 * time.Minute

// The kinds of *SignatureError, for errors.Is. All but ErrNoSecret are the
// sender's fault (401); ErrNoSecret is ours (500).
var (
	// ErrMissingSignature: a header the scheme needs is absent or empty.
	ErrMissingSignature = errors.New("webhook: missing signature")
	// ErrInvalidSignature: the signature header is malformed, or no
	// configured secret produces the signature it carries.
	ErrInvalidSignature = errors.New("webhook: invalid signature")
	// ErrStaleTimestamp: the signature is right but its timestamp is more
	// than Tolerance in the past or the future.
	ErrStaleTimestamp = errors.New("webhook: stale timestamp")
	// ErrNoSecret: no usable secret is configured for the provider, so no
	// delivery can be verified. A server-side misconfiguration: answer 500
	// (or 503) and alert, never 401, so the sender keeps retrying until it
	// is fixed.
	ErrNoSecret = errors.New("webhook: no secret configured")
)

// SignatureError says why a delivery failed verification. Its kind is one
// of ErrMissingSignature, ErrInvalidSignature, ErrStaleTimestamp and
// ErrNoSecret (errors.Is matches it). Reason names the header at fault and
// never quotes a secret or a signature.
type SignatureError struct {
	// Provider is the provider's name.
	Provider string
	// Kind is the sentinel error this failure is an instance of.
	Kind error
	// Reason explains the failure, e.g. `header "Stripe-Signature" is
	// absent or empty` or "timestamp is 7m0s too old (tolerance 5m0s)".
	Reason string
}

// Error reads "webhook: <provider>: <kind>: <reason>".
func (e *SignatureError) Error() string {
	return fmt.Sprintf("webhook: %s: %s: %s", e.Provider, strings.TrimPrefix(e.Kind.Error(), "webhook: "), e.Reason)
}

// Unwrap returns the kind, so errors.Is(err, ErrStaleTimestamp) works.
func (e *SignatureError) Unwrap() error { return e.Kind }

// Verify checks that body and its headers were signed by the provider with
// one of secrets (several are active while a secret rotates; any match
// passes), comparing in constant time, and, for schemes that sign a
// timestamp, that it lies within Tolerance of now.
//
// h is looked up with http.Header.Get, so it must hold canonical keys: build
// it with Header.Set or HeaderFromMap (API Gateway v2 lower-cases header
// names). Failures are *SignatureError.
func (p *Provider) Verify(h http.Header, body []byte, secrets []string, now time.Time) error {
	sc, ok := lookupScheme(p.Signature.Scheme)
	if !ok {
		return fmt.Errorf("webhook: %s: unknown signature scheme %q", p.Name, p.Signature.Scheme)
	}
	return sc.verify(p, h, body, secrets, now)
}

// HeaderFromMap builds a canonical http.Header from single-valued headers
// such as API Gateway v2's lower-cased map (which already joins repeated
// headers with commas).
func HeaderFromMap(m map[string]string) http.Header {
	h := make(http.Header, len(m))
	for k, v := range m {
		h.Set(k, v)
	}
	return h
}

func (p *Provider) signatureError(kind error, format string, args ...any) *SignatureError {
	return &SignatureError{Provider: p.Name, Kind: kind, Reason: fmt.Sprintf(format, args...)}
}

// signatureHeader returns a header the scheme needs, trimmed.
func (p *Provider) signatureHeader(h http.Header, name string) (string, error) {
	v := strings.TrimSpace(h.Get(name))
	if v == "" {
		return "", p.signatureError(ErrMissingSignature, "header %q is absent or empty", name)
	}
	return v, nil
}

// rawKeys turns secrets used verbatim as HMAC keys (stripe, github, hmac)
// into keys, dropping blank ones.
func (p *Provider) rawKeys(secrets []string) ([][]byte, error) {
	var keys [][]byte
	for _, s := range secrets {
		if s = strings.TrimSpace(s); s != "" {
			keys = append(keys, []byte(s))
		}
	}
	if len(keys) == 0 {
		return nil, p.signatureError(ErrNoSecret, "the secret source returned none for provider %s", p.Name)
	}
	return keys, nil
}

// mac is HMAC-SHA256 of the concatenated parts.
func mac(key []byte, parts ...[]byte) []byte {
	m := hmac.New(sha256.New, key)
	for _, part := range parts {
		m.Write(part)
	}
	return m.Sum(nil)
}

// matchAny reports whether any key signs parts to any of sigs, comparing
// in constant time.
func matchAny(keys, sigs [][]byte, parts ...[]byte) bool {
	for _, key := range keys {
		want := mac(key, parts...)
		for _, sig := range sigs {
			if hmac.Equal(want, sig) {
				return true
			}
		}
	}
	return false
}

// parseUnix reads a signed timestamp in unix seconds.
func parseUnix(s string) (int64, bool) {
	ts, err := strconv.ParseInt(s, 10, 64)
	return ts, err == nil && ts > 0
}

// checkTimestamp refuses a signed timestamp more than Tolerance from now.
func (p *Provider) checkTimestamp(unix int64, now time.Time) error {
	skew := now.Sub(time.Unix(unix, 0))
	switch {
	case skew > Tolerance:
		return p.signatureError(ErrStaleTimestamp, "timestamp is %s too old (tolerance %s)", skew.Round(time.Second), Tolerance)
	case skew < -Tolerance:
		return p.signatureError(ErrStaleTimestamp, "timestamp is %s in the future (tolerance %s)", (-skew).Round(time.Second), Tolerance)
	}
	return nil
}
