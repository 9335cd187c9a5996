package outbox_test

import (
	"context"
	"encoding/base64"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/internal/outbox"
	"github.com/streamops/streamops/internal/provider"
	"github.com/streamops/streamops/internal/status"
)

// rotationPartner is an httptest partner endpoint that checks every
// delivery with the Standard Webhooks library, once per secret it knows,
// and records which of them verified it.
type rotationPartner struct {
	srv     *httptest.Server
	secrets []string
	mu      sync.Mutex
	// verified[i] lists, per request, whether secret i alone verified it.
	verified [][]bool
}

func newRotationPartner(t *testing.T, secrets ...string) *rotationPartner {
	p := &rotationPartner{secrets: secrets}
	p.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		ok := make([]bool, len(secrets))
		for i, s := range secrets {
			wh, err := standardwebhooks.NewWebhook(s)
			require.NoError(t, err)
			ok[i] = wh.Verify(body, r.Header) == nil
		}
		p.mu.Lock()
		p.verified = append(p.verified, ok)
		p.mu.Unlock()
	}))
	t.Cleanup(p.srv.Close)
	return p
}

// rotationSecretsManager serves one SecretString for every secret id.
type rotationSecretsManager struct{ value string }

func (f rotationSecretsManager) GetSecretValue(_ context.Context, in *secretsmanager.GetSecretValueInput, _ ...func(*secretsmanager.Options)) (*secretsmanager.GetSecretValueOutput, error) {
	return &secretsmanager.GetSecretValueOutput{Name: in.SecretId, SecretString: aws.String(f.value)}, nil
}

func rotationSecret(key string) string {
	return "whsec_" + base64.StdEncoding.EncodeToString([]byte(key+"-0123456789abcdef"))
}

// TestRotatingPartnerSecretsEachVerifyTheDelivery: while a partner's
// secret rotates, PARTNER_SECRET_<PARTNER> or its Secrets Manager secret
// holds both; the relay's request, received by a real HTTP endpoint,
// verifies with the Standard Webhooks library under each secret alone. A
// secret that is not whsec_<base64> stops the delivery before anything is
// sent (a retryable failure naming the secret's position).
func TestRotatingPartnerSecretsEachVerifyTheDelivery(t *testing.T) {
	oldS, newS, third := rotationSecret("old"), rotationSecret("new"), rotationSecret("third")
	sm := func(value string) provider.SecretSource {
		s, err := provider.NewSecretsManagerSecrets(rotationSecretsManager{value}, provider.SecretsManagerOptions{Prefix: "streamops/partner/"})
		require.NoError(t, err)
		return s
	}
	env := func(value string) provider.SecretSource {
		return provider.EnvSecrets{Prefix: "PARTNER_SECRET_", Lookup: func(k string) string {
			if k == "PARTNER_SECRET_ACME" {
				return value
			}
			return ""
		}}
	}
	tests := []struct {
		name     string
		source   provider.SecretSource
		verifies []bool // per secret old, new, third
		wantErr  string
	}{
		{"env: one secret", env(oldS), []bool{true, false, false}, ""},
		{"env: old and new", env(newS + "," + oldS), []bool{true, true, false}, ""},
		{"env: whitespace and an empty entry", env(" " + newS + " ,, " + oldS + " "), []bool{true, true, false}, ""},
		{"env: three, all sign", env(third + "," + newS + "," + oldS), []bool{true, true, true}, ""},
		{"secrets manager: comma-separated", sm(newS + "," + oldS), []bool{true, true, false}, ""},
		{"secrets manager: JSON array", sm(`["` + newS + `","` + oldS + `"]`), []bool{true, true, false}, ""},
		{"secrets manager: {\"secrets\": [...]}", sm(`{"secrets":["` + newS + `","` + oldS + `"]}`), []bool{true, true, false}, ""},
		{"env: a bad new secret is refused at send", env("whsec_%%%," + oldS), nil, "secret 1 of 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			p := newRotationPartner(t, oldS, newS, third)
			id := h.enqueue(t, "acme", 1)[0]
			st, err := h.relay(t, func(c *outbox.Config) {
				c.Partners = map[string]outbox.Partner{"acme": {ID: "acme", Name: "Acme Corp", URL: p.srv.URL}}
				c.PartnerDeliverer.Secrets = tt.source
			}).Run(context.Background())
			require.NoError(t, err)
			entry, err := h.Store.GetOutboxEntry(context.Background(), id)
			require.NoError(t, err)
			if tt.wantErr != "" {
				assert.Equal(t, 1, st.Retried)
				assert.Equal(t, status.OutboxFailed, entry.Status)
				assert.Contains(t, entry.LastError, tt.wantErr)
				assert.NotContains(t, entry.LastError, "%%%", "the secret is never logged")
				assert.Empty(t, p.verified, "nothing was sent")
				return
			}
			assert.Equal(t, 1, st.Delivered)
			assert.Equal(t, status.OutboxCompleted, entry.Status)
			require.Len(t, p.verified, 1, "one request")
			assert.Equal(t, tt.verifies, p.verified[0], "which secrets verify the delivery alone (old, new, third)")
		})
	}
}
