package provider_test

import (
	"encoding/base64"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/internal/provider"
)

// whsec returns a Standard Webhooks secret for key.
func whsec(key string) string { return "whsec_" + base64.StdEncoding.EncodeToString([]byte(key)) }

func TestStandardWebhooksSignatureVerification(t *testing.T) {
	current, previous, other := whsec("standard-current-key-0123456789!"), whsec("standard-previous-key-012345678"), whsec("attacker-key")
	p := defaultProvider(t, "standard")
	opts := provider.SignOptions{ID: "msg_2KWPBgLlAfxdpx2AI54pPJ85f4W"}

	common := commonCases(rotation{current, previous, other}, "webhook-signature", "matches a configured secret")
	runVerifyTable(t, p, "standard-event.json", opts, append(common, []verifyCase{
		{name: "secret without the whsec_ prefix is raw base64", signWith: current,
			secrets: []string{base64.StdEncoding.EncodeToString([]byte("standard-current-key-0123456789!"))}},
		{name: "tampered id", signWith: current, secrets: []string{current}, tamper: setHeader("webhook-id", "msg_other"),
			wantErr: provider.ErrInvalidSignature, reason: "matches a configured secret"},
		{name: "stale", signWith: current, secrets: []string{current}, signedAt: now.Add(-5*time.Minute - time.Second),
			wantErr: provider.ErrStaleTimestamp, reason: "5m1s too old (tolerance 5m0s)"},
		{name: "future", signWith: current, secrets: []string{current}, signedAt: now.Add(time.Hour),
			wantErr: provider.ErrStaleTimestamp, reason: "1h0m0s in the future"},
		{name: "missing id header", signWith: current, secrets: []string{current}, tamper: dropHeader("webhook-id"),
			wantErr: provider.ErrMissingSignature, reason: `header "webhook-id"`},
		{name: "missing timestamp header", signWith: current, secrets: []string{current}, tamper: dropHeader("webhook-timestamp"),
			wantErr: provider.ErrMissingSignature, reason: `header "webhook-timestamp"`},
		{name: "malformed signature header", signWith: current, secrets: []string{current},
			tamper:  setHeader("webhook-signature", "v1 K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4="),
			wantErr: provider.ErrInvalidSignature, reason: "no well-formed v1,<base64> signature"},
		{name: "only an asymmetric v1a signature", signWith: current, secrets: []string{current},
			tamper:  setHeader("webhook-signature", "v1a,hnO3f9T8Ytu9HwrXslvumlUpqtNVqkhqw/enGzPCXe5BdqzCInXqYXFymVJaA7AZdpXwVLPo3mNl8EM+m7TBAg=="),
			wantErr: provider.ErrInvalidSignature, reason: "no well-formed v1,<base64> signature"},
		{name: "timestamp not unix seconds", signWith: current, secrets: []string{current},
			tamper:  setHeader("webhook-timestamp", "2025-01-15T00:10:00Z"),
			wantErr: provider.ErrInvalidSignature, reason: "is not unix seconds"},
		{name: "no secret configured", signWith: current, secrets: nil,
			wantErr: provider.ErrNoSecret, reason: "returned none for provider standard"},
		{name: "configured secret is not base64", signWith: current, secrets: []string{"whsec_not base64!"},
			wantErr: provider.ErrNoSecret, reason: "is whsec_<base64>"},
	}...))
}

func TestStandardWebhooksSignatureListMatchesAnyEntry(t *testing.T) {
	secret := whsec("standard-current-key-0123456789!")
	p := defaultProvider(t, "standard")
	body := readFixture(t, "standard-event.json")
	h, err := p.Sign(body, secret, provider.SignOptions{Now: now, ID: "msg_1"})
	require.NoError(t, err)

	// A sender mid-rotation signs with both secrets, space separated.
	h.Set("webhook-signature", "v1,"+base64.StdEncoding.EncodeToString(make([]byte, 32))+" "+h.Get("webhook-signature"))

	assert.NoError(t, p.Verify(h, body, []string{secret}, now))
}

// The spec's own test vector (standard-webhooks/standard-webhooks, libraries).
func TestStandardWebhooksSpecVector(t *testing.T) {
	p := defaultProvider(t, "standard")
	h := provider.HeaderFromMap(map[string]string{
		"webhook-id":        "msg_p5jXN8AQM9LWM0D4loKWxJek",
		"webhook-timestamp": "1614265330",
		"webhook-signature": "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
	})
	body := []byte(`{"test": 2432232314}`)

	err := p.Verify(h, body, []string{"whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"}, time.Unix(1614265330, 0))

	assert.NoError(t, err)
}

func TestHeaderFromMapCanonicalisesLowerCasedKeys(t *testing.T) {
	h := provider.HeaderFromMap(map[string]string{"x-github-event": "push", "stripe-signature": "t=1"})
	assert.Equal(t, http.Header{"X-Github-Event": {"push"}, "Stripe-Signature": {"t=1"}}, h)
}
