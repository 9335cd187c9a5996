package provider

import (
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// SchemeStandard is the Standard Webhooks spec (webhook-id,
// webhook-timestamp, webhook-signature, or the same under the svix-* names
// Svix sends; whsec_ secrets).
const SchemeStandard Scheme = "standard"

// The Standard Webhooks headers and secret prefix
// (https://www.standardwebhooks.com).
const (
	standardIDHeader        = "webhook-id"
	standardTimestampHeader = "webhook-timestamp"
	standardSignatureHeader = "webhook-signature" // "v1,<base64> [v1,<base64> …]"
	standardSecretPrefix    = "whsec_"
)

// standardHeaders names the three headers of one Standard Webhooks header
// family.
type standardHeaders struct{ id, timestamp, signature string }

// The header families a Standard Webhooks sender may use: the spec's own
// names, and the svix-* names Svix and its libraries (svix-go among them)
// send. Both carry the same values, signed the same way.
var (
	specHeaders = standardHeaders{standardIDHeader, standardTimestampHeader, standardSignatureHeader}
	svixHeaders = standardHeaders{"svix-id", "svix-timestamp", "svix-signature"}
)

// complete reports whether h carries all three headers of the family.
func (f standardHeaders) complete(h http.Header) bool {
	return strings.TrimSpace(h.Get(f.id)) != "" && strings.TrimSpace(h.Get(f.timestamp)) != "" && strings.TrimSpace(h.Get(f.signature)) != ""
}

// partial reports whether h carries at least one header of the family.
func (f standardHeaders) partial(h http.Header) bool {
	return strings.TrimSpace(h.Get(f.id)+h.Get(f.timestamp)+h.Get(f.signature)) != ""
}

// alias returns the family's name for a header named after the spec's
// family (webhook-id → svix-id), and any other name unchanged.
func (f standardHeaders) alias(name string) string {
	switch http.CanonicalHeaderKey(name) {
	case http.CanonicalHeaderKey(standardIDHeader):
		return f.id
	case http.CanonicalHeaderKey(standardTimestampHeader):
		return f.timestamp
	case http.CanonicalHeaderKey(standardSignatureHeader):
		return f.signature
	}
	return name
}

// standardAlias reads a configured webhook-* header name in the family
// the delivery uses (standardFamilyOf).
func standardAlias(h http.Header, name string) string { return standardFamilyOf(h).alias(name) }

// standardFamilyOf picks the header family a delivery is read with, as
// svix-go's verifier does: svix-* when all three are present, otherwise
// webhook-*; so both accept the same deliveries. The one exception is for
// error messages: a delivery that carries only some svix-* headers and no
// webhook-* one is read as svix-*, so the header named missing is one of
// the family the sender uses.
func standardFamilyOf(h http.Header) standardHeaders {
	if svixHeaders.complete(h) || (svixHeaders.partial(h) && !specHeaders.partial(h)) {
		return svixHeaders
	}
	return specHeaders
}

// verifyStandard checks the Standard Webhooks scheme: HMAC-SHA256, base64,
// over "<id>.<timestamp>.<body>", keyed with the base64 decoding of the
// secret after its whsec_ prefix, the three values read from the webhook-*
// or the svix-* headers (standardFamilyOf). Signatures of other versions
// (v1a, asymmetric) are ignored.
func (p *Provider) verifyStandard(h http.Header, body []byte, secrets []string, now time.Time) error {
	f := standardFamilyOf(h)
	id, err := p.signatureHeader(h, f.id)
	if err != nil {
		return err
	}
	t, err := p.signatureHeader(h, f.timestamp)
	if err != nil {
		return err
	}
	v, err := p.signatureHeader(h, f.signature)
	if err != nil {
		return err
	}
	unix, ok := parseUnix(t)
	if !ok {
		return p.signatureError(ErrInvalidSignature, "header %q is not unix seconds", f.timestamp)
	}
	var sigs [][]byte
	for item := range strings.FieldsSeq(v) {
		version, encoded, _ := strings.Cut(item, ",")
		if version != "v1" {
			continue
		}
		if sig, err := base64.StdEncoding.DecodeString(encoded); err == nil && len(sig) > 0 {
			sigs = append(sigs, sig)
		}
	}
	if len(sigs) == 0 {
		return p.signatureError(ErrInvalidSignature, "header %q has no well-formed v1,<base64> signature", f.signature)
	}
	keys, err := p.standardKeys(secrets)
	if err != nil {
		return err
	}
	if !matchAny(keys, sigs, []byte(id), []byte("."), []byte(t), []byte("."), body) {
		return p.signatureError(ErrInvalidSignature, "no v1 signature in header %q matches a configured secret", f.signature)
	}
	return p.checkTimestamp(unix, now)
}

// standardKeys decodes the usable secrets; if none is usable the provider
// is misconfigured (ErrNoSecret).
func (p *Provider) standardKeys(secrets []string) ([][]byte, error) {
	var keys [][]byte
	blank := true
	for _, s := range secrets {
		if strings.TrimSpace(s) == "" {
			continue
		}
		blank = false
		if key, err := standardKey(s); err == nil {
			keys = append(keys, key)
		}
	}
	switch {
	case blank:
		return nil, p.signatureError(ErrNoSecret, "the secret source returned none for provider %s", p.Name)
	case len(keys) == 0:
		return nil, p.signatureError(ErrNoSecret, "no configured secret of provider %s is whsec_<base64>", p.Name)
	}
	return keys, nil
}

// standardKey decodes a Standard Webhooks secret: "whsec_<base64>", or the
// bare base64.
func standardKey(secret string) ([]byte, error) {
	encoded := strings.TrimPrefix(strings.TrimSpace(secret), standardSecretPrefix)
	key, err := base64.StdEncoding.DecodeString(encoded)
	if err != nil || len(key) == 0 {
		return nil, errors.New("webhook: Standard Webhooks secret is not whsec_<base64>")
	}
	return key, nil
}

// signStandardDelivery signs as a Standard Webhooks sender: the webhook-id
// is signed too, so opts.ID is required.
func (*Provider) signStandardDelivery(h http.Header, secret string, body []byte, opts SignOptions) error {
	if opts.ID == "" {
		return errors.New("webhook: sign: the standard scheme signs the webhook-id: SignOptions.ID is required")
	}
	key, err := standardKey(secret)
	if err != nil {
		return fmt.Errorf("webhook: sign: %w", err)
	}
	signStandard(h, [][]byte{key}, opts.ID, body, opts.Now)
	return nil
}

// signStandard sets the three headers a Standard Webhooks sender sends,
// the signature header holding one "v1,<base64>" entry per key, separated
// by single spaces as the spec (and its libraries, which split on one
// space) read them.
func signStandard(h http.Header, keys [][]byte, id string, body []byte, now time.Time) {
	t := strconv.FormatInt(now.Unix(), 10)
	h.Set(standardIDHeader, id)
	h.Set(standardTimestampHeader, t)
	sigs := make([]string, len(keys))
	for i, key := range keys {
		sigs[i] = "v1," + base64.StdEncoding.EncodeToString(mac(key, []byte(id), []byte("."), []byte(t), []byte("."), body))
	}
	h.Set(standardSignatureHeader, strings.Join(sigs, " "))
}
