package provider_test

import (
	"testing"

	"github.com/streamops/streamops/internal/provider"
)

func TestGitHubSignatureVerification(t *testing.T) {
	const current, previous, other = "gh-current-secret", "gh-previous-secret", "gh-attacker-secret"
	p := defaultProvider(t, "github")
	opts := provider.SignOptions{ID: "72d3162e-cc78-11e3-81ab-4c9367dc0958", EventType: "push"}

	common := commonCases(rotation{current, previous, other}, "X-Hub-Signature-256", "matches no configured secret")
	runVerifyTable(t, p, "github-push.json", opts, append(common, []verifyCase{
		{name: "no timestamp is signed, so an old delivery passes (dedupe catches replays)", signWith: current, secrets: []string{current},
			signedAt: now.AddDate(0, 0, -1)},
		{name: "legacy sha1 value", signWith: current, secrets: []string{current},
			tamper:  setHeader("X-Hub-Signature-256", "sha1=7d38cdd689735b008b3c702edd92eea23791c5f6"),
			wantErr: provider.ErrInvalidSignature, reason: `does not start with "sha256="`},
		{name: "not hex", signWith: current, secrets: []string{current},
			tamper:  setHeader("X-Hub-Signature-256", "sha256=zz"),
			wantErr: provider.ErrInvalidSignature, reason: "is not hex"},
		{name: "no secret configured", signWith: current, secrets: []string{""},
			wantErr: provider.ErrNoSecret, reason: "provider github"},
	}...))
}
