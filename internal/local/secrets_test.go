package local

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/internal/provider"
)

func noEnv(string) string { return "" }

func TestGeneratedSecretsSurviveRestarts(t *testing.T) {
	dir := t.TempDir()
	first, err := localSecret(dir, "STREAMOPS_ADMIN_TOKEN", "so_local_", noEnv)
	require.NoError(t, err)
	assert.Regexp(t, `^so_local_[A-Za-z0-9_-]{32}$`, first)
	again, err := localSecret(dir, "STREAMOPS_ADMIN_TOKEN", "so_local_", noEnv)
	require.NoError(t, err)
	assert.Equal(t, first, again, "the next start reads the same token")
	info, err := os.Stat(filepath.Join(dir, secretsDir, "STREAMOPS_ADMIN_TOKEN"))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), info.Mode().Perm())

	fromEnv, err := localSecret(dir, "STREAMOPS_ADMIN_TOKEN", "so_local_", func(string) string { return " mine " })
	require.NoError(t, err)
	assert.Equal(t, "mine", fromEnv, "the environment wins")
}

// TestEveryProviderCanBeSignedWithItsGeneratedSecret checks that the
// generated secrets suit every scheme (Standard Webhooks needs
// whsec_<base64>) by signing and verifying a body with each provider.
func TestEveryProviderCanBeSignedWithItsGeneratedSecret(t *testing.T) {
	providers, err := provider.LoadProviders("")
	require.NoError(t, err)
	secrets, err := webhookSecrets(t.TempDir(), providers, func(k string) string {
		if k == "WEBHOOK_SECRET_GITHUB" {
			return "gh-new,gh-old"
		}
		return ""
	})
	require.NoError(t, err)
	require.ElementsMatch(t, providers.Names(), keys(secrets))
	body := []byte(`{"id":"evt_1","type":"invoice.finalized","eventId":"e-1","eventType":"OR_NEW","order":{"id":"o-1"}}`)
	now := time.Now()
	for _, name := range providers.Names() {
		t.Run(name, func(t *testing.T) {
			p, _ := providers.Provider(name)
			src := secretSource{byProvider: secrets}
			list, err := src.Secrets(t.Context(), name)
			require.NoError(t, err)
			require.NotEmpty(t, list)
			h, err := p.Sign(body, list[0], provider.SignOptions{Now: now, ID: "msg_1", EventType: "push"})
			require.NoError(t, err)
			assert.NoError(t, p.Verify(h, body, list, now))
		})
	}
	gh, _ := secretSource{byProvider: secrets}.Secrets(t.Context(), "github")
	assert.Equal(t, []string{"gh-new", "gh-old"}, gh, "a rotation list stays a list")
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

var curlHeader = regexp.MustCompile(`-H '([^:]+): ([^']*)'`)

// TestSignedCurlVerifies reads the printed curl back and verifies its
// signature as the webhook function will.
func TestSignedCurlVerifies(t *testing.T) {
	providers, err := provider.LoadProviders("")
	require.NoError(t, err)
	p, _ := providers.Provider("stripe")
	now := time.Now()
	body := SampleInvoiceFinalized(now)
	cmd, err := SignedCurl("http://127.0.0.1:8080", p, "whsec_test", body, provider.SignOptions{Now: now})
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(cmd, "curl -sS -i -X POST 'http://127.0.0.1:8080/webhooks/stripe'"), cmd)
	assert.Contains(t, cmd, "--data-raw '"+string(body)+"'")

	h := map[string][]string{}
	for _, m := range curlHeader.FindAllStringSubmatch(cmd, -1) {
		h[m[1]] = append(h[m[1]], m[2])
	}
	require.Contains(t, h, "Stripe-Signature")
	assert.NoError(t, p.Verify(h, body, []string{"whsec_test"}, now))
	assert.Error(t, p.Verify(h, body, []string{"whsec_test"}, now.Add(6*time.Minute)), "Stripe's tolerance: it expires")
	id, eventType, err := p.Identify(h, body)
	require.NoError(t, err)
	assert.Regexp(t, `^evt_local_[0-9a-f]{16}$`, id)
	assert.Equal(t, "invoice.finalized", eventType)
	route, ok := p.Route(eventType)
	require.True(t, ok)
	require.NotNil(t, route.Workflow)
	assert.Len(t, route.Workflow.Steps, 3, "the sample routes to a 3-step workflow")
}

func TestShellQuote(t *testing.T) {
	assert.Equal(t, `'it'\''s'`, shellQuote("it's"))
}
