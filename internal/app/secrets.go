package app

import (
	"context"
	"os"

	"github.com/streamops/streamops/internal/awsenv"
	"github.com/streamops/streamops/internal/provider"
)

// Secret sources of the two kinds of signing secrets.
const (
	// WebhookSecrets verify inbound webhooks: env WEBHOOK_SECRET_<PROVIDER>
	// locally, Secrets Manager "streamops/webhook/<provider>" on Lambda.
	WebhookSecrets = "webhook"
	// PartnerSecrets sign outbound partner deliveries: env
	// PARTNER_SECRET_<PARTNER> locally, "streamops/partner/<partner>" on
	// Lambda.
	PartnerSecrets = "partner"
)

// Secrets picks where secrets of kind come from: AWS Secrets Manager on
// Lambda (AWS_LAMBDA_FUNCTION_NAME is set there; the secret id prefix can be
// overridden with WEBHOOK_SECRETS_PREFIX / PARTNER_SECRETS_PREFIX), else
// environment variables.
func Secrets(ctx context.Context, kind string) (provider.SecretSource, error) {
	envPrefix, smPrefix, override := "WEBHOOK_SECRET_", "streamops/webhook/", "WEBHOOK_SECRETS_PREFIX"
	if kind == PartnerSecrets {
		envPrefix, smPrefix, override = "PARTNER_SECRET_", "streamops/partner/", "PARTNER_SECRETS_PREFIX"
	}
	if os.Getenv("AWS_LAMBDA_FUNCTION_NAME") == "" {
		return provider.EnvSecrets{Prefix: envPrefix}, nil
	}
	if p := os.Getenv(override); p != "" {
		smPrefix = p
	}
	return provider.NewSecretsManagerSecrets(awsenv.NewSecretsManager(), provider.SecretsManagerOptions{Prefix: smPrefix})
}
