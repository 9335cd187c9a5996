package provider_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/internal/provider"
)

func TestStripeSignatureVerification(t *testing.T) {
	const current, previous, other = "whsec_stripeCurrent0123456789", "whsec_stripePrevious0123456789", "whsec_attacker"
	p := defaultProvider(t, "stripe")

	common := commonCases(rotation{current, previous, other}, "Stripe-Signature", "matches a configured secret")
	runVerifyTable(t, p, "stripe-invoice-finalized.json", provider.SignOptions{}, append(common, []verifyCase{
		{name: "blank secrets are ignored", signWith: current, secrets: []string{" ", current}},
		{name: "stale", signWith: current, secrets: []string{current}, signedAt: now.Add(-6 * time.Minute),
			wantErr: provider.ErrStaleTimestamp, reason: "6m0s too old"},
		{name: "at the tolerance edge", signWith: current, secrets: []string{current}, signedAt: now.Add(-provider.Tolerance)},
		{name: "future", signWith: current, secrets: []string{current}, signedAt: now.Add(10 * time.Minute),
			wantErr: provider.ErrStaleTimestamp, reason: "10m0s in the future"},
		{name: "header without v1", signWith: current, secrets: []string{current},
			tamper:  setHeader("Stripe-Signature", "t=1736899800,v0=6ffbb59b2300aae63f272406069a9788598b792a944a07aba816edb039989a39"),
			wantErr: provider.ErrInvalidSignature, reason: "no v1 signature"},
		{name: "header without timestamp", signWith: current, secrets: []string{current},
			tamper:  setHeader("Stripe-Signature", "v1=6ffbb59b2300aae63f272406069a9788598b792a944a07aba816edb039989a39"),
			wantErr: provider.ErrInvalidSignature, reason: "no t=<unix seconds> timestamp"},
		{name: "no secret configured", signWith: current, secrets: nil,
			wantErr: provider.ErrNoSecret, reason: "the secret source returned none for provider stripe"},
	}...))
}

func TestStripeSignatureAcceptsAnyOfSeveralV1AndIgnoresV0(t *testing.T) {
	const current = "whsec_stripeCurrent0123456789"
	p := defaultProvider(t, "stripe")
	body := readFixture(t, "stripe-invoice-finalized.json")
	h, err := p.Sign(body, current, provider.SignOptions{Now: now})
	require.NoError(t, err)

	// Stripe sends one v1 per active endpoint secret, plus v0 in test mode.
	v1 := strings.TrimPrefix(h.Get("Stripe-Signature"), "t=1736899800,")
	h.Set("Stripe-Signature", "t=1736899800, v1="+strings.Repeat("ab", 32)+",v0=not-hex,"+v1)

	assert.NoError(t, p.Verify(h, body, []string{current}, now))
}
