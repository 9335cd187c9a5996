package provider_test

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/internal/provider"
)

// TestCDKContextHasASecretForEveryDefaultProvider holds cdk.json's
// webhookProviders, the signing-secret placeholders the stack creates
// under streamops/webhook/, to the default providers table: a provider
// added to providers.json without its secret would answer every delivery
// 500 once deployed (no secret to verify with), so that fails here, naming
// the provider.
func TestCDKContextHasASecretForEveryDefaultProvider(t *testing.T) {
	raw, err := os.ReadFile("../../cdk.json")
	require.NoError(t, err)
	var cdk struct {
		Context struct {
			WebhookProviders []string `json:"webhookProviders"`
		} `json:"context"`
	}
	require.NoError(t, json.Unmarshal(raw, &cdk))
	reg, err := provider.LoadProviders("")
	require.NoError(t, err)
	for _, name := range reg.Names() {
		assert.Contains(t, cdk.Context.WebhookProviders, name, "cdk.json context.webhookProviders needs %q: the secret %s%s", name, provider.DefaultSecretPrefix, name)
	}
	assert.Subset(t, reg.Names(), cdk.Context.WebhookProviders, "cdk.json names only default providers")
}
