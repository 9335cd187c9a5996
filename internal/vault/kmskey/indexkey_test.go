package kmskey_test

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/internal/vault/kmskey"
)

const indexSecretARN = "arn:aws:secretsmanager:eu-west-1:111111111111:secret:streamops/pii-index-key-AbCdEf"

// fakeSecret answers GetSecretValue with one value, or fails.
type fakeSecret struct {
	out   *secretsmanager.GetSecretValueOutput
	err   error
	asked []string
}

func (f *fakeSecret) GetSecretValue(_ context.Context, in *secretsmanager.GetSecretValueInput, _ ...func(*secretsmanager.Options)) (*secretsmanager.GetSecretValueOutput, error) {
	f.asked = append(f.asked, aws.ToString(in.SecretId))
	return f.out, f.err
}

func TestIndexKeyFromSecret(t *testing.T) {
	key := bytes.Repeat([]byte{0xab, 0x01}, 16)
	hexKey := hex.EncodeToString(key)
	tests := []struct {
		name    string
		out     *secretsmanager.GetSecretValueOutput
		err     error
		want    []byte
		wantErr string
	}{
		{"64 hex digits, as the stack generates them", &secretsmanager.GetSecretValueOutput{SecretString: aws.String(hexKey)}, nil, key, ""},
		{"upper case and a trailing newline", &secretsmanager.GetSecretValueOutput{SecretString: aws.String(" " + strings.ToUpper(hexKey) + "\n")}, nil, key, ""},
		{"32 binary bytes", &secretsmanager.GetSecretValueOutput{SecretBinary: key}, nil, key, ""},
		{"too short", &secretsmanager.GetSecretValueOutput{SecretString: aws.String(hexKey[:62])}, nil, nil, "not 64 hex digits"},
		{"too long", &secretsmanager.GetSecretValueOutput{SecretString: aws.String(hexKey + "00")}, nil, nil, "not 64 hex digits"},
		{"not hex", &secretsmanager.GetSecretValueOutput{SecretString: aws.String("zz" + hexKey[2:])}, nil, nil, "not 64 hex digits"},
		{"a password, not a key", &secretsmanager.GetSecretValueOutput{SecretString: aws.String("correct horse battery staple")}, nil, nil, "not 64 hex digits"},
		{"31 binary bytes", &secretsmanager.GetSecretValueOutput{SecretBinary: key[:31]}, nil, nil, "31 bytes, want 32"},
		{"no value", nil, nil, nil, "no value"},
		{"not readable", nil, errors.New("AccessDeniedException: not authorized"), nil, "AccessDeniedException"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			api := &fakeSecret{out: tt.out, err: tt.err}
			got, err := kmskey.IndexKeyFromSecret(t.Context(), api, indexSecretARN)
			assert.Equal(t, []string{indexSecretARN}, api.asked)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Nil(t, got)
				assert.Contains(t, err.Error(), tt.wantErr)
				assert.Contains(t, err.Error(), indexSecretARN, "the error names the secret")
				assert.NotContains(t, err.Error(), hexKey[:16], "the error never holds the value")
				if tt.err != nil {
					assert.ErrorIs(t, err, tt.err)
				}
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
			assert.Len(t, got, kmskey.IndexKeySize)
		})
	}
}

func TestIndexKeyFromSecretNeedsAClientAndAnID(t *testing.T) {
	_, err := kmskey.IndexKeyFromSecret(t.Context(), nil, indexSecretARN)
	assert.Error(t, err)
	_, err = kmskey.IndexKeyFromSecret(t.Context(), &fakeSecret{}, "")
	assert.ErrorContains(t, err, "STREAMOPS_PII_INDEX_SECRET_ARN")
}

func TestIndexKeyFromABinarySecretIsACopy(t *testing.T) {
	key := bytes.Repeat([]byte{7}, 32)
	api := &fakeSecret{out: &secretsmanager.GetSecretValueOutput{SecretBinary: key}}
	got, err := kmskey.IndexKeyFromSecret(t.Context(), api, indexSecretARN)
	require.NoError(t, err)
	got[0] = 0
	assert.Equal(t, byte(7), key[0], "the caller's copy is its own")
}
