package provider_test

import (
	"encoding/base64"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/internal/provider"
)

// whsec returns a Standard Webhooks secret for key.
func whsec(key string) string { return "whsec_" + base64.StdEncoding.EncodeToString([]byte(key)) }

// TestSignatureVerification runs each default provider's scheme through
// its verification table: the rows every scheme shares (commonCases), then
// the scheme's own.
func TestSignatureVerification(t *testing.T) {
	stripe := rotation{"whsec_stripeCurrent0123456789", "whsec_stripePrevious0123456789", "whsec_attacker"}
	github := rotation{"gh-current-secret", "gh-previous-secret", "gh-attacker-secret"}
	standard := rotation{whsec("standard-current-key-0123456789!"), whsec("standard-previous-key-012345678"), whsec("attacker-key")}
	acme := rotation{"acme-current-secret", "acme-previous-secret", "acme-attacker"}
	schemes := []struct {
		provider string
		secrets  rotation
		header   string // the signature header
		noMatch  string // the reason when no secret matches
		fixture  string
		opts     provider.SignOptions
		cases    []verifyCase // the scheme's rows after commonCases
	}{
		{"stripe", stripe, "Stripe-Signature", "matches a configured secret", "stripe-invoice-finalized.json", provider.SignOptions{}, []verifyCase{
			{name: "blank secrets are ignored", signWith: stripe.current, secrets: []string{" ", stripe.current}},
			{name: "stale", signWith: stripe.current, secrets: []string{stripe.current}, signedAt: now.Add(-6 * time.Minute),
				wantErr: provider.ErrStaleTimestamp, reason: "6m0s too old"},
			{name: "at the tolerance edge", signWith: stripe.current, secrets: []string{stripe.current}, signedAt: now.Add(-provider.Tolerance)},
			{name: "future", signWith: stripe.current, secrets: []string{stripe.current}, signedAt: now.Add(10 * time.Minute),
				wantErr: provider.ErrStaleTimestamp, reason: "10m0s in the future"},
			{name: "header without v1", signWith: stripe.current, secrets: []string{stripe.current},
				tamper:  setHeader("Stripe-Signature", "t=1736899800,v0=6ffbb59b2300aae63f272406069a9788598b792a944a07aba816edb039989a39"),
				wantErr: provider.ErrInvalidSignature, reason: "no v1 signature"},
			{name: "header without timestamp", signWith: stripe.current, secrets: []string{stripe.current},
				tamper:  setHeader("Stripe-Signature", "v1=6ffbb59b2300aae63f272406069a9788598b792a944a07aba816edb039989a39"),
				wantErr: provider.ErrInvalidSignature, reason: "no t=<unix seconds> timestamp"},
			{name: "no secret configured", signWith: stripe.current, secrets: nil,
				wantErr: provider.ErrNoSecret, reason: "the secret source returned none for provider stripe"},
		}},
		{"github", github, "X-Hub-Signature-256", "matches no configured secret", "github-push.json",
			provider.SignOptions{ID: "72d3162e-cc78-11e3-81ab-4c9367dc0958", EventType: "push"}, []verifyCase{
				{name: "no timestamp is signed, so an old delivery passes (dedupe catches replays)", signWith: github.current, secrets: []string{github.current},
					signedAt: now.AddDate(0, 0, -1)},
				{name: "legacy sha1 value", signWith: github.current, secrets: []string{github.current},
					tamper:  setHeader("X-Hub-Signature-256", "sha1=7d38cdd689735b008b3c702edd92eea23791c5f6"),
					wantErr: provider.ErrInvalidSignature, reason: `does not start with "sha256="`},
				{name: "not hex", signWith: github.current, secrets: []string{github.current},
					tamper:  setHeader("X-Hub-Signature-256", "sha256=zz"),
					wantErr: provider.ErrInvalidSignature, reason: "is not hex"},
				{name: "no secret configured", signWith: github.current, secrets: []string{""},
					wantErr: provider.ErrNoSecret, reason: "provider github"},
			}},
		{"standard", standard, "webhook-signature", "matches a configured secret", "standard-event.json",
			provider.SignOptions{ID: "msg_2KWPBgLlAfxdpx2AI54pPJ85f4W"}, []verifyCase{
				{name: "secret without the whsec_ prefix is raw base64", signWith: standard.current,
					secrets: []string{base64.StdEncoding.EncodeToString([]byte("standard-current-key-0123456789!"))}},
				{name: "tampered id", signWith: standard.current, secrets: []string{standard.current}, tamper: setHeader("webhook-id", "msg_other"),
					wantErr: provider.ErrInvalidSignature, reason: "matches a configured secret"},
				{name: "stale", signWith: standard.current, secrets: []string{standard.current}, signedAt: now.Add(-5*time.Minute - time.Second),
					wantErr: provider.ErrStaleTimestamp, reason: "5m1s too old (tolerance 5m0s)"},
				{name: "future", signWith: standard.current, secrets: []string{standard.current}, signedAt: now.Add(time.Hour),
					wantErr: provider.ErrStaleTimestamp, reason: "1h0m0s in the future"},
				{name: "missing id header", signWith: standard.current, secrets: []string{standard.current}, tamper: dropHeader("webhook-id"),
					wantErr: provider.ErrMissingSignature, reason: `header "webhook-id"`},
				{name: "missing timestamp header", signWith: standard.current, secrets: []string{standard.current}, tamper: dropHeader("webhook-timestamp"),
					wantErr: provider.ErrMissingSignature, reason: `header "webhook-timestamp"`},
				{name: "malformed signature header", signWith: standard.current, secrets: []string{standard.current},
					tamper:  setHeader("webhook-signature", "v1 K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4="),
					wantErr: provider.ErrInvalidSignature, reason: "no well-formed v1,<base64> signature"},
				{name: "only an asymmetric v1a signature", signWith: standard.current, secrets: []string{standard.current},
					tamper:  setHeader("webhook-signature", "v1a,hnO3f9T8Ytu9HwrXslvumlUpqtNVqkhqw/enGzPCXe5BdqzCInXqYXFymVJaA7AZdpXwVLPo3mNl8EM+m7TBAg=="),
					wantErr: provider.ErrInvalidSignature, reason: "no well-formed v1,<base64> signature"},
				{name: "timestamp not unix seconds", signWith: standard.current, secrets: []string{standard.current},
					tamper:  setHeader("webhook-timestamp", "2025-01-15T00:10:00Z"),
					wantErr: provider.ErrInvalidSignature, reason: "is not unix seconds"},
				{name: "no secret configured", signWith: standard.current, secrets: nil,
					wantErr: provider.ErrNoSecret, reason: "returned none for provider standard"},
				{name: "configured secret is not base64", signWith: standard.current, secrets: []string{"whsec_not base64!"},
					wantErr: provider.ErrNoSecret, reason: "is whsec_<base64>"},
			}},
		{"acme", acme, "X-Acme-Signature", "matches no configured secret", "acme-order.json", provider.SignOptions{}, []verifyCase{
			{name: "upper-case hex", signWith: acme.current, secrets: []string{acme.current}, tamper: func(h http.Header, body []byte) []byte {
				h.Set("X-Acme-Signature", "sha256="+strings.ToUpper(strings.TrimPrefix(h.Get("X-Acme-Signature"), "sha256=")))
				return body
			}},
			{name: "missing prefix", signWith: acme.current, secrets: []string{acme.current}, tamper: func(h http.Header, body []byte) []byte {
				h.Set("X-Acme-Signature", strings.TrimPrefix(h.Get("X-Acme-Signature"), "sha256="))
				return body
			}, wantErr: provider.ErrInvalidSignature, reason: `does not start with "sha256="`},
			{name: "not hex", signWith: acme.current, secrets: []string{acme.current}, tamper: setHeader("X-Acme-Signature", "sha256=not-hex"),
				wantErr: provider.ErrInvalidSignature, reason: "is not hex"},
			{name: "no secret configured", signWith: acme.current, secrets: []string{},
				wantErr: provider.ErrNoSecret, reason: "provider acme"},
		}},
	}
	for _, s := range schemes {
		t.Run(s.provider, func(t *testing.T) {
			cases := append(commonCases(s.secrets, s.header, s.noMatch), s.cases...)
			runVerifyTable(t, defaultProvider(t, s.provider), readFixture(t, s.fixture), s.opts, cases)
		})
	}
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

func TestHMACSignatureInBase64WithoutPrefix(t *testing.T) {
	p := configured(t, provider.Provider{
		Name:      "globex",
		Signature: provider.Signature{Scheme: provider.SchemeHMAC, Header: "X-Globex-Hmac", Encoding: provider.EncodingBase64},
		EventID:   provider.Field{Header: "X-Globex-Delivery"},
		EventType: provider.Field{Path: "kind"},
	})
	body := []byte(`{"kind":"shipment.created","shipment":{"id":"shp_1"}}`)

	tests := []struct {
		name    string
		header  func(signed string) string
		wantErr error
	}{
		{"padded base64", func(s string) string { return s }, nil},
		{"unpadded base64", func(s string) string { return strings.TrimRight(s, "=") }, nil},
		{"hex where base64 is configured", func(string) string { return strings.Repeat("ab", 32) }, provider.ErrInvalidSignature},
		{"not base64", func(string) string { return "%%%" }, provider.ErrInvalidSignature},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, err := p.Sign(body, "globex-secret", provider.SignOptions{ID: "d-1"})
			require.NoError(t, err)
			_, err = base64.StdEncoding.DecodeString(h.Get("X-Globex-Hmac"))
			require.NoError(t, err, "Sign writes padded base64")
			assert.Equal(t, "d-1", h.Get("X-Globex-Delivery"), "Sign sends the id where the provider reads it")
			h.Set("X-Globex-Hmac", tt.header(h.Get("X-Globex-Hmac")))

			err = p.Verify(h, body, []string{"globex-secret"}, now)

			if tt.wantErr == nil {
				assert.NoError(t, err)
			} else {
				assert.ErrorIs(t, err, tt.wantErr)
			}
		})
	}
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
