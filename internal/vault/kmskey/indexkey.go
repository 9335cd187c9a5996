package kmskey

import (
	"context"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"

	"github.com/streamops/streamops/internal/provider"
)

// IndexKeySize is the length of the blind-index HMAC key (HMAC-SHA-256's
// block of strength).
const IndexKeySize = 32

// IndexKeyFromSecret reads the blind-index HMAC key from the Secrets
// Manager secret id (STREAMOPS_PII_INDEX_SECRET_ARN): a SecretString of 64
// hex digits, as the CDK stack generates it, or a SecretBinary of the 32
// bytes. A function reads it once at cold start and keeps it in memory;
// the key never changes for the life of a deployment, since every subject
// id is derived from it. Errors name the secret, never its value.
func IndexKeyFromSecret(ctx context.Context, api provider.GetSecretValueAPI, id string) ([]byte, error) {
	if api == nil || id == "" {
		return nil, fmt.Errorf("kmskey: index key: a Secrets Manager client and secret id are required (STREAMOPS_PII_INDEX_SECRET_ARN)")
	}
	out, err := api.GetSecretValue(ctx, &secretsmanager.GetSecretValueInput{SecretId: aws.String(id)})
	if err != nil {
		return nil, fmt.Errorf("kmskey: read the index key from secret %s: %w", id, err)
	}
	if out == nil {
		return nil, fmt.Errorf("kmskey: secret %s: no value", id)
	}
	if out.SecretString == nil {
		if len(out.SecretBinary) != IndexKeySize {
			return nil, fmt.Errorf("kmskey: secret %s: a binary value of %d bytes, want %d", id, len(out.SecretBinary), IndexKeySize)
		}
		return append([]byte(nil), out.SecretBinary...), nil
	}
	s := strings.TrimSpace(*out.SecretString)
	key, err := hex.DecodeString(s)
	if err != nil || len(key) != IndexKeySize {
		return nil, fmt.Errorf("kmskey: secret %s: the value is not %d hex digits", id, 2*IndexKeySize)
	}
	return key, nil
}
