package app_test

import (
	"context"
	"encoding/hex"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/kms"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/internal/app"
	"github.com/streamops/streamops/internal/config"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/store/storetest"
	"github.com/streamops/streamops/internal/vault"
)

// reversingKMS stands in for AWS KMS (no account here): it "wraps" by
// reversing the bytes and counts the calls.
type reversingKMS struct{ encrypts, decrypts int }

func reversed(b []byte) []byte {
	out := slices.Clone(b)
	slices.Reverse(out)
	return out
}

func (k *reversingKMS) Encrypt(_ context.Context, in *kms.EncryptInput, _ ...func(*kms.Options)) (*kms.EncryptOutput, error) {
	k.encrypts++
	return &kms.EncryptOutput{CiphertextBlob: reversed(in.Plaintext), KeyId: in.KeyId}, nil
}

func (k *reversingKMS) Decrypt(_ context.Context, in *kms.DecryptInput, _ ...func(*kms.Options)) (*kms.DecryptOutput, error) {
	k.decrypts++
	return &kms.DecryptOutput{Plaintext: reversed(in.CiphertextBlob), KeyId: in.KeyId}, nil
}

type indexSecret struct{}

func (indexSecret) GetSecretValue(_ context.Context, _ *secretsmanager.GetSecretValueInput, _ ...func(*secretsmanager.Options)) (*secretsmanager.GetSecretValueOutput, error) {
	return &secretsmanager.GetSecretValueOutput{SecretString: aws.String(hex.EncodeToString([]byte(strings.Repeat("k", 32))))}, nil
}

// TestOpenVaultTakesTheKeysTheConfigurationNames: the KMS key where one
// is named, the key file of the data directory (or the one named), keys
// in memory for a store in memory; on Lambda a function that handles
// personal data refuses to start without the KMS key, and one that does
// not has no vault.
func TestOpenVaultTakesTheKeysTheConfigurationNames(t *testing.T) {
	const arn = "arn:aws:kms:eu-west-1:111111111111:key/1234abcd-12ab-34cd-56ef-1234567890ab"
	dir := t.TempDir()
	cases := []struct {
		name    string
		cfg     app.Config
		vault   bool
		err     string
		keyFile string
		kms     bool
	}{
		{name: "kms", cfg: app.Config{OnLambda: true, HandlesPII: true,
			PIIKeys: config.PIIKeys{PIIKMSKey: config.PIIKMSKey{KMSKeyARN: arn}, PIIIndex: config.PIIIndex{IndexSecretARN: "arn:secret"}}},
			vault: true, kms: true},
		{name: "lambda without the key", cfg: app.Config{OnLambda: true, HandlesPII: true}, err: "STREAMOPS_PII_KMS_KEY_ARN"},
		{name: "lambda, no personal data", cfg: app.Config{OnLambda: true}},
		{name: "data directory", cfg: app.Config{Store: store.Config{DataDir: dir}}, vault: true, keyFile: filepath.Join(dir, vault.KeyFileName)},
		{name: "named key file", cfg: app.Config{PII: config.PII{KeyFile: filepath.Join(dir, "keys", "other.key")}}, vault: true,
			keyFile: filepath.Join(dir, "keys", "other.key")},
		{name: "in memory", cfg: app.Config{}, vault: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st := storetest.Open(t, store.Config{})
			fake := &reversingKMS{}
			c.cfg.KMS, c.cfg.Secrets = fake, indexSecret{}
			v, err := app.OpenVault(context.Background(), c.cfg, st, nil)
			if c.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), c.err)
				return
			}
			require.NoError(t, err)
			if !c.vault {
				assert.Nil(t, v)
				return
			}
			require.NotNil(t, v)
			if c.keyFile != "" {
				assert.FileExists(t, c.keyFile)
			}
			out, err := v.Protect(context.Background(), vault.Input{Doc: []byte(`{"email":"a@example.com"}`)})
			require.NoError(t, err)
			back, err := v.ResolveDocument(context.Background(), out, vault.Purpose{Who: "test"}, nil)
			require.NoError(t, err)
			assert.JSONEq(t, `{"email":"a@example.com"}`, string(back))
			if c.kms {
				assert.Equal(t, 1, fake.encrypts, "a new subject's key is wrapped by KMS")
				assert.Equal(t, 1, fake.decrypts)
			} else {
				assert.Zero(t, fake.encrypts+fake.decrypts)
			}
		})
	}
}

// TestTheFunctionsThatHandlePersonalDataNameTheirKeys: NewConfig carries
// the vault's AWS keys of the functions whose configuration names them,
// and marks no other function as handling personal data.
func TestTheFunctionsThatHandlePersonalDataNameTheirKeys(t *testing.T) {
	keys := config.PIIKeys{PIIKMSKey: config.PIIKMSKey{KMSKeyARN: "arn:key"}, PIIIndex: config.PIIIndex{IndexSecretARN: "arn:secret"}}
	cases := []struct {
		name    string
		cfg     config.App
		handles bool
		want    config.PIIKeys
	}{
		{"webhook", config.Webhook{PIIKeys: keys}, true, keys},
		{"api", config.API{PIIKeys: keys}, true, keys},
		{"task-processor", config.TaskProcessor{PIIKeys: keys}, true, keys},
		{"outbox-relay", config.OutboxRelay{PIIKey: keys.PIIKMSKey}, true, config.PIIKeys{PIIKMSKey: keys.PIIKMSKey}},
		{"retry-sweeper", config.RetrySweeper{}, false, config.PIIKeys{}},
		{"archiver", config.Archiver{}, false, config.PIIKeys{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := app.NewConfig(c.name, c.cfg)
			assert.Equal(t, c.handles, got.HandlesPII)
			assert.Equal(t, c.want, got.PIIKeys)
		})
	}
}
