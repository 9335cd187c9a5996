package ingest

import (
	"context"
	"os"

	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"

	"github.com/streamops/streamops/internal/webhook"
)

// SecretsFromEnv picks where webhook secrets come from: AWS Secrets Manager
// on Lambda (AWS_LAMBDA_FUNCTION_NAME is set there; the secret id prefix is
// WEBHOOK_SECRETS_PREFIX, default "streamops/webhook/"), else the
// WEBHOOK_SECRET_<PROVIDER> environment variables.
func SecretsFromEnv(ctx context.Context) (webhook.SecretSource, error) {
	if os.Getenv("AWS_LAMBDA_FUNCTION_NAME") == "" {
		return webhook.EnvSecrets{}, nil
	}
	awsCfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		return nil, err
	}
	return webhook.NewSecretsManagerSecrets(secretsmanager.NewFromConfig(awsCfg),
		webhook.SecretsManagerOptions{Prefix: os.Getenv("WEBHOOK_SECRETS_PREFIX")})
}
