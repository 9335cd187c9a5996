package provider

import (
	"encoding/base64"
	"encoding/hex"
	"net/http"
	"strings"
	"time"
)

// SchemeHMAC is a plain HMAC-SHA256 of the body in a configured header.
const SchemeHMAC Scheme = "hmac"

// configureHMAC fills the hmac scheme's default encoding, hex.
func configureHMAC(s *Signature) {
	if s.Encoding == "" {
		s.Encoding = EncodingHex
	}
}

// checkHMAC validates the hmac scheme's options: a header, and hex or
// base64.
func checkHMAC(s Signature, field string, errs *configErrors) {
	if s.Header == "" {
		errs.add(field+".header", "is required for the hmac scheme")
	}
	if s.Encoding != EncodingHex && s.Encoding != EncodingBase64 {
		errs.add(field+".encoding", "%q must be hex or base64", s.Encoding)
	}
}

// verifyHMAC checks the plain hmac scheme: HMAC-SHA256 over the body, hex
// or base64, in the configured header after an optional prefix. It signs no
// timestamp, so replays are caught only by provider_event_id deduplication.
func (p *Provider) verifyHMAC(h http.Header, body []byte, secrets []string, _ time.Time) error {
	s := p.Signature
	v, err := p.signatureHeader(h, s.Header)
	if err != nil {
		return err
	}
	encoded, ok := strings.CutPrefix(v, s.Prefix)
	if !ok {
		return p.signatureError(ErrInvalidSignature, "header %q does not start with %q", s.Header, s.Prefix)
	}
	sig, ok := decodeSignature(s.Encoding, encoded)
	if !ok {
		return p.signatureError(ErrInvalidSignature, "header %q is not %s", s.Header, s.Encoding)
	}
	keys, err := p.rawKeys(secrets)
	if err != nil {
		return err
	}
	if !matchAny(keys, [][]byte{sig}, body) {
		return p.signatureError(ErrInvalidSignature, "header %q matches no configured secret", s.Header)
	}
	return nil
}

// decodeSignature reads a hex or base64 (padded or not) signature.
func decodeSignature(enc Encoding, s string) ([]byte, bool) {
	var sig []byte
	var err error
	switch enc {
	case EncodingHex:
		sig, err = hex.DecodeString(s)
	case EncodingBase64:
		if sig, err = base64.StdEncoding.DecodeString(s); err != nil {
			sig, err = base64.RawStdEncoding.DecodeString(s)
		}
	default:
		return nil, false
	}
	return sig, err == nil && len(sig) > 0
}

// encodeSignature writes a signature as the provider's header carries it.
func encodeSignature(enc Encoding, sig []byte) string {
	if enc == EncodingBase64 {
		return base64.StdEncoding.EncodeToString(sig)
	}
	return hex.EncodeToString(sig)
}

// signHMAC sets the configured signature header.
func (p *Provider) signHMAC(h http.Header, secret string, body []byte, _ SignOptions) error {
	s := p.Signature
	h.Set(s.Header, s.Prefix+encodeSignature(s.Encoding, mac([]byte(secret), body)))
	return nil
}
