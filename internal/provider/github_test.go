package provider_test

import (
	"testing"

	"github.com/streamops/streamops/internal/provider"
)

func TestGitHubSignatureVerification(t *testing.T) {
	const current, previous, other = "gh-current-secret", "gh-previous-secret", "gh-attacker-secret"
	p := defaultProvider(t, "github")
	opts := provider.SignOptions{ID: "72d3162e-cc78-11e3-81ab-4c9367dc0958", EventType: "push"}

	runVerifyTable(t, p, "github-push.json", opts, []verifyCase{
		{name: "valid", signWith: current, secrets: []string{current}},
		{name: "rotated: signed with the previous secret, both active", signWith: previous, secrets: []string{current, previous}},
		{name: "no timestamp is signed, so an old delivery passes (dedupe catches replays)", signWith: current, secrets: []string{current},
			signedAt: now.AddDate(0, 0, -1)},
		{name: "wrong secret", signWith: other, secrets: []string{current, previous},
			wantErr: provider.ErrInvalidSignature, reason: "matches no configured secret"},
		{name: "tampered body", signWith: current, secrets: []string{current}, tamper: tamperBody,
			wantErr: provider.ErrInvalidSignature, reason: "matches no configured secret"},
		{name: "missing header", signWith: current, secrets: []string{current}, tamper: dropHeader("X-Hub-Signature-256"),
			wantErr: provider.ErrMissingSignature, reason: `header "X-Hub-Signature-256" is absent or empty`},
		{name: "legacy sha1 value", signWith: current, secrets: []string{current},
			tamper:  setHeader("X-Hub-Signature-256", "sha1=7d38cdd689735b008b3c702edd92eea23791c5f6"),
			wantErr: provider.ErrInvalidSignature, reason: `does not start with "sha256="`},
		{name: "not hex", signWith: current, secrets: []string{current},
			tamper:  setHeader("X-Hub-Signature-256", "sha256=zz"),
			wantErr: provider.ErrInvalidSignature, reason: "is not hex"},
		{name: "no secret configured", signWith: current, secrets: []string{""},
			wantErr: provider.ErrNoSecret, reason: "provider github"},
	})
}
