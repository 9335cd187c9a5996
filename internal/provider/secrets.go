package provider

import (
	"context"
	"os"
	"strings"
)

// SecretSource yields a provider's active signing secrets: usually one, two
// while a secret rotates. An empty list with a nil error means none is
// configured, which Verify reports as ErrNoSecret; an error means the source
// itself failed (answer 503 so the provider retries).
type SecretSource interface {
	Secrets(ctx context.Context, provider string) ([]string, error)
}

// SecretEnvPrefix starts the name of the environment variable holding a
// provider's secrets; see SecretEnvVar.
const SecretEnvPrefix = "WEBHOOK_SECRET_"

// SecretEnvVar names the environment variable of a provider's secrets:
// WEBHOOK_SECRET_ and the name upper-cased with '-' as '_'
// ("acme-eu" → WEBHOOK_SECRET_ACME_EU).
func SecretEnvVar(provider string) string {
	return SecretEnvPrefix + strings.ReplaceAll(strings.ToUpper(provider), "-", "_")
}

// EnvSecrets reads secrets from the environment: SecretEnvVar(provider)
// holds a comma-separated list ("whsec_new,whsec_old"). It suits the local
// stack and tests; deployed functions use SecretsManagerSecrets so secrets
// stay out of the function configuration.
type EnvSecrets struct {
	// Lookup reads a variable. Default os.Getenv; tests inject a map.
	Lookup func(key string) string
	// Prefix replaces "WEBHOOK_SECRET_" in the variable name; the outbox
	// relay reads partner secrets from PARTNER_SECRET_<PARTNER>.
	Prefix string
}

// Secrets returns the trimmed, non-empty entries of the provider's
// variable; none when it is unset.
func (e EnvSecrets) Secrets(_ context.Context, provider string) ([]string, error) {
	lookup := e.Lookup
	if lookup == nil {
		lookup = os.Getenv
	}
	name := SecretEnvVar(provider)
	if e.Prefix != "" {
		name = e.Prefix + strings.TrimPrefix(name, "WEBHOOK_SECRET_")
	}
	return splitSecrets(lookup(name)), nil
}

// splitSecrets splits a comma-separated list, trimming entries and dropping
// empty ones.
func splitSecrets(s string) []string {
	var out []string
	for part := range strings.SplitSeq(s, ",") {
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, part)
		}
	}
	return out
}
