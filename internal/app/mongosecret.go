package app

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"

	"github.com/streamops/streamops/internal/provider"
)

// MongoURIFromSecret reads the MongoDB connection string from the Secrets
// Manager secret id (a name or an ARN), pinned to versionID when it is set.
// Open calls it once per process (a Lambda cold start), so the URI lives in
// the function's memory only, never in its configuration, where anyone
// allowed lambda:GetFunctionConfiguration could read it; a rotated URI is
// picked up by the next cold start. Errors name the secret, never its value.
func MongoURIFromSecret(ctx context.Context, api provider.GetSecretValueAPI, id, versionID string) (string, error) {
	in := &secretsmanager.GetSecretValueInput{SecretId: aws.String(id)}
	if versionID != "" {
		in.VersionId = aws.String(versionID)
	}
	out, err := api.GetSecretValue(ctx, in)
	if err != nil {
		return "", fmt.Errorf("app: read the MongoDB URI from secret %s: %w", id, err)
	}
	var uri string
	switch {
	case out.SecretString != nil:
		uri = *out.SecretString
	default:
		uri = string(out.SecretBinary)
	}
	uri = strings.TrimSpace(uri)
	if !strings.HasPrefix(uri, "mongodb://") && !strings.HasPrefix(uri, "mongodb+srv://") {
		return "", fmt.Errorf("app: secret %s: %w", id, errors.New("value is not a mongodb:// or mongodb+srv:// URI"))
	}
	return uri, nil
}
