package provider_test

import (
	"strings"
	"testing"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/internal/provider"
)

// TestSignStandardSignsWithEveryConfiguredSecret: a partner delivery is
// signed once per configured secret, in one webhook-signature header of
// single-space-separated v1 entries, and each secret alone verifies it,
// with our verifier and with the Standard Webhooks library itself; a
// list holding a secret that is not whsec_<base64>, or none, is refused.
func TestSignStandardSignsWithEveryConfiguredSecret(t *testing.T) {
	a, b, c := whsec("old-secret-0123456789"), whsec("new-secret-0123456789"), whsec("third-secret-012345678")
	tests := []struct {
		name     string
		secrets  []string
		verifies []string // each verifies alone
		wantErr  string
	}{
		{name: "one secret", secrets: []string{a}, verifies: []string{a}},
		{name: "two while rotating", secrets: []string{b, a}, verifies: []string{b, a}},
		{name: "whitespace around and blank entries", secrets: []string{" " + b + " ", "", "\t" + a}, verifies: []string{b, a}},
		{name: "three: every one signs", secrets: []string{c, b, a}, verifies: []string{c, b, a}},
		{name: "bare base64 without whsec_", secrets: []string{strings.TrimPrefix(a, "whsec_")}, verifies: []string{a}},
		{name: "none", secrets: nil, wantErr: "webhook: sign: empty secret"},
		{name: "only blanks", secrets: []string{" ", ""}, wantErr: "webhook: sign: empty secret"},
		{name: "a bad second secret refuses the delivery", secrets: []string{a, "whsec_%%%"},
			wantErr: "secret 2 of 2: webhook: Standard Webhooks secret is not whsec_<base64>"},
		{name: "a bad first secret refuses the delivery", secrets: []string{"not base64!", a},
			wantErr: "secret 1 of 2: webhook: Standard Webhooks secret is not whsec_<base64>"},
	}
	body := []byte(`{"orderId":59734,"status":"OR_SHIPPED"}`)
	verifier := &provider.Provider{Name: "acme-out", Signature: provider.Signature{Scheme: provider.SchemeStandard}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, err := provider.SignStandard(body, tt.secrets, "msg_1", now)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				assert.NotContains(t, err.Error(), "%%%", "the secret itself is never in the error")
				return
			}
			require.NoError(t, err)
			sig := h.Get("webhook-signature")
			entries := strings.Split(sig, " ")
			assert.Len(t, entries, len(tt.verifies), "one v1 entry per secret, single spaces: %q", sig)
			for _, e := range entries {
				assert.True(t, strings.HasPrefix(e, "v1,"), e)
			}
			for _, secret := range tt.verifies {
				assert.NoError(t, verifier.Verify(h, body, []string{secret}, now), "our verifier, secret %s alone", secret)
				wh, err := standardwebhooks.NewWebhook(secret)
				require.NoError(t, err)
				assert.NoError(t, wh.VerifyIgnoringTimestamp(body, h), "the Standard Webhooks library, secret %s alone", secret)
			}
			wh, err := standardwebhooks.NewWebhook(whsec("a secret nobody configured"))
			require.NoError(t, err)
			assert.ErrorIs(t, wh.VerifyIgnoringTimestamp(body, h), standardwebhooks.ErrNoMatchingSignature)
		})
	}
}
