package provider

import (
	"encoding/hex"
	"net/http"
	"strings"
	"time"
)

// SchemeGitHub is GitHub's `X-Hub-Signature-256: sha256=…` header.
const SchemeGitHub Scheme = "github"

// GitHub's delivery headers, and the form field a form post carries the
// event in.
const (
	githubSignatureHeader = "X-Hub-Signature-256" // "sha256=<hex>"
	githubDeliveryHeader  = "X-GitHub-Delivery"   // a GUID per delivery
	githubEventHeader     = "X-GitHub-Event"      // "push", "pull_request", …
	githubSignaturePrefix = "sha256="
	githubFormField       = "payload"
)

// verifyGitHub checks GitHub's scheme: HMAC-SHA256, hex, over the body. It
// signs no timestamp, so replays are caught only by provider_event_id
// deduplication (X-GitHub-Delivery).
func (p *Provider) verifyGitHub(h http.Header, body []byte, secrets []string, _ time.Time) error {
	v, err := p.signatureHeader(h, githubSignatureHeader)
	if err != nil {
		return err
	}
	encoded, ok := strings.CutPrefix(v, githubSignaturePrefix)
	if !ok {
		return p.signatureError(ErrInvalidSignature, "header %q does not start with %q", githubSignatureHeader, githubSignaturePrefix)
	}
	sig, err := hex.DecodeString(encoded)
	if err != nil {
		return p.signatureError(ErrInvalidSignature, "header %q is not hex after %q", githubSignatureHeader, githubSignaturePrefix)
	}
	keys, err := p.rawKeys(secrets)
	if err != nil {
		return err
	}
	if !matchAny(keys, [][]byte{sig}, body) {
		return p.signatureError(ErrInvalidSignature, "header %q matches no configured secret", githubSignatureHeader)
	}
	return nil
}

// signGitHub sets the X-Hub-Signature-256 header GitHub would send.
func (*Provider) signGitHub(h http.Header, secret string, body []byte, _ SignOptions) error {
	h.Set(githubSignatureHeader, githubSignaturePrefix+hex.EncodeToString(mac([]byte(secret), body)))
	return nil
}
