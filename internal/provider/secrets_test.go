package provider_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/internal/provider"
)

func TestEnvSecrets(t *testing.T) {
	env := map[string]string{
		"WEBHOOK_SECRET_STRIPE":  "whsec_new",
		"WEBHOOK_SECRET_GITHUB":  " gh-new , gh-old ,, ",
		"WEBHOOK_SECRET_ACME_EU": "acme-eu",
		"WEBHOOK_SECRET_BLANK":   " , ",
	}
	src := provider.EnvSecrets{Lookup: func(k string) string { return env[k] }}

	tests := []struct {
		provider string
		want     []string
	}{
		{"stripe", []string{"whsec_new"}},
		{"github", []string{"gh-new", "gh-old"}},
		{"acme-eu", []string{"acme-eu"}},
		{"blank", nil},
		{"unset", nil},
	}
	for _, tt := range tests {
		t.Run(tt.provider, func(t *testing.T) {
			got, err := src.Secrets(context.Background(), tt.provider)

			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestEnvSecretsReadsTheProcessEnvironmentByDefault(t *testing.T) {
	t.Setenv("WEBHOOK_SECRET_STANDARD", "whsec_a,whsec_b")

	got, err := provider.EnvSecrets{}.Secrets(context.Background(), "standard")

	require.NoError(t, err)
	assert.Equal(t, []string{"whsec_a", "whsec_b"}, got)
}

func TestSecretEnvVar(t *testing.T) {
	assert.Equal(t, "WEBHOOK_SECRET_STRIPE", provider.SecretEnvVar("stripe"))
	assert.Equal(t, "WEBHOOK_SECRET_ACME_EU_2", provider.SecretEnvVar("acme-eu_2"))
}

func TestNoConfiguredSecretIsAServerError(t *testing.T) {
	p := defaultProvider(t, "stripe")
	body := readFixture(t, "stripe-invoice-finalized.json")
	h, err := p.Sign(body, "whsec_x", provider.SignOptions{Now: now})
	require.NoError(t, err)
	secrets, err := provider.EnvSecrets{Lookup: func(string) string { return "" }}.Secrets(context.Background(), "stripe")
	require.NoError(t, err)

	err = p.Verify(h, body, secrets, now)

	assert.ErrorIs(t, err, provider.ErrNoSecret)
	assert.NotErrorIs(t, err, provider.ErrInvalidSignature)
}
