package provider_test

import (
	"encoding/base64"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/internal/provider"
)

func TestHMACSignatureVerification(t *testing.T) {
	const current, previous, other = "acme-current-secret", "acme-previous-secret", "acme-attacker"
	p := defaultProvider(t, "acme")

	common := commonCases(rotation{current, previous, other}, "X-Acme-Signature", "matches no configured secret")
	runVerifyTable(t, p, "acme-order.json", provider.SignOptions{}, append(common, []verifyCase{
		{name: "upper-case hex", signWith: current, secrets: []string{current}, tamper: func(h http.Header, body []byte) []byte {
			h.Set("X-Acme-Signature", "sha256="+strings.ToUpper(strings.TrimPrefix(h.Get("X-Acme-Signature"), "sha256=")))
			return body
		}},
		{name: "missing prefix", signWith: current, secrets: []string{current}, tamper: func(h http.Header, body []byte) []byte {
			h.Set("X-Acme-Signature", strings.TrimPrefix(h.Get("X-Acme-Signature"), "sha256="))
			return body
		}, wantErr: provider.ErrInvalidSignature, reason: `does not start with "sha256="`},
		{name: "not hex", signWith: current, secrets: []string{current}, tamper: setHeader("X-Acme-Signature", "sha256=not-hex"),
			wantErr: provider.ErrInvalidSignature, reason: "is not hex"},
		{name: "no secret configured", signWith: current, secrets: []string{},
			wantErr: provider.ErrNoSecret, reason: "provider acme"},
	}...))
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
