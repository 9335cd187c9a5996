package app

import (
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
// Lambda, under the secret id prefix smPrefix (WEBHOOK_SECRETS_PREFIX /
// PARTNER_SECRETS_PREFIX), else the environment variables
// WEBHOOK_SECRET_<PROVIDER> / PARTNER_SECRET_<PARTNER>, whose names depend
// on the providers and partners configured and so are looked up by name.
func Secrets(kind string, onLambda bool, smPrefix string) (provider.SecretSource, error) {
	envPrefix := "WEBHOOK_SECRET_"
	if kind == PartnerSecrets {
		envPrefix = "PARTNER_SECRET_"
	}
	if !onLambda {
		return provider.EnvSecrets{Prefix: envPrefix, Lookup: os.Getenv}, nil
	}
	return provider.NewSecretsManagerSecrets(awsenv.NewSecretsManager(), provider.SecretsManagerOptions{Prefix: smPrefix})
}
