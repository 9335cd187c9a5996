package local

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/streamops/streamops/internal/provider"
)

// secretsDir is where generated secrets live under the data directory, one
// file per environment variable they stand in for.
const secretsDir = "secrets"

// localSecret returns the value of the environment variable name when it
// is set, else the secret generated for it under dataDir (created with
// prefix and 24 random bytes on first use, mode 0600), so it stays the
// same across restarts.
func localSecret(dataDir, name, prefix string, getenv func(string) string) (string, error) {
	if v := strings.TrimSpace(getenv(name)); v != "" {
		return v, nil
	}
	path := filepath.Join(dataDir, secretsDir, name)
	raw, err := os.ReadFile(path)
	if err == nil && strings.TrimSpace(string(raw)) != "" {
		return strings.TrimSpace(string(raw)), nil
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("local: read %s: %w", path, err)
	}
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	v := prefix + base64.RawURLEncoding.EncodeToString(b)
	if strings.HasPrefix(prefix, "whsec_") {
		// Standard Webhooks secrets are whsec_ and standard base64.
		v = prefix + base64.StdEncoding.EncodeToString(b)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return "", fmt.Errorf("local: create %s: %w", filepath.Dir(path), err)
	}
	if err := os.WriteFile(path, []byte(v+"\n"), 0o600); err != nil {
		return "", fmt.Errorf("local: write %s: %w", path, err)
	}
	return v, nil
}

// webhookSecrets gives every configured provider a signing secret: its
// WEBHOOK_SECRET_<PROVIDER> when set, else one generated into the data
// directory. It returns them by provider name.
func webhookSecrets(dataDir string, providers *provider.Registry, getenv func(string) string) (map[string]string, error) {
	out := map[string]string{}
	for _, name := range providers.Names() {
		v, err := localSecret(dataDir, provider.SecretEnvVar(name), "whsec_", getenv)
		if err != nil {
			return nil, err
		}
		out[name] = v
	}
	return out, nil
}

// secretSource serves the provider secrets the stack resolved, reading the
// environment for any other name, as provider.EnvSecrets does.
type secretSource struct {
	byProvider map[string]string
	env        provider.EnvSecrets
}

// Secrets implements provider.SecretSource.
func (s secretSource) Secrets(ctx context.Context, name string) ([]string, error) {
	if v, ok := s.byProvider[name]; ok {
		// Rotation lists stay lists: "whsec_new,whsec_old".
		return provider.EnvSecrets{Lookup: func(string) string { return v }}.Secrets(ctx, name)
	}
	return s.env.Secrets(ctx, name)
}

// WebhookSecret is the signing secret the local stack with data directory
// dataDir uses for provider name: WEBHOOK_SECRET_<PROVIDER> when set, else the
// one generated under dataDir (generated now if the stack never ran). Of
// a rotation list it returns the first, the one senders sign with.
func WebhookSecret(dataDir, name string, getenv func(string) string) (string, error) {
	v, err := localSecret(dataDir, provider.SecretEnvVar(name), "whsec_", getenv)
	first, _, _ := strings.Cut(v, ",")
	return strings.TrimSpace(first), err
}
