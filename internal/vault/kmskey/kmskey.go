package kmskey

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/kms"
	"github.com/aws/aws-sdk-go-v2/service/kms/types"

	"github.com/streamops/streamops/internal/awsenv"
)

// ContextKey is the encryption-context key that binds a wrapped key to its
// subject. Key policies and CloudTrail queries may name it
// (kms:EncryptionContext:streamops:subject).
const ContextKey = "streamops:subject"

// MaxKeySize is the largest key Wrap accepts: KMS Encrypt takes at most
// 4096 bytes of plaintext.
const MaxKeySize = 4096

// API is the two KMS calls a Wrapper makes; *kms.Client satisfies it, tests
// pass a fake.
type API interface {
	Encrypt(ctx context.Context, in *kms.EncryptInput, optFns ...func(*kms.Options)) (*kms.EncryptOutput, error)
	Decrypt(ctx context.Context, in *kms.DecryptInput, optFns ...func(*kms.Options)) (*kms.DecryptOutput, error)
}

// Wrapper wraps subject keys with one KMS key. It holds no key material and
// is safe for concurrent use.
type Wrapper struct {
	api    API
	keyARN string
}

// New returns a Wrapper that calls api with the KMS key keyARN
// (STREAMOPS_PII_KMS_KEY_ARN).
func New(api API, keyARN string) (*Wrapper, error) {
	switch {
	case api == nil:
		return nil, errors.New("kmskey: a KMS client is required")
	case keyARN == "":
		return nil, errors.New("kmskey: a KMS key ARN is required (STREAMOPS_PII_KMS_KEY_ARN)")
	}
	return &Wrapper{api: api, keyARN: keyARN}, nil
}

// NewClient is a KMS client of the function's region and credentials
// (awsenv.Config), at AWS_ENDPOINT_URL_KMS or AWS_ENDPOINT_URL when one is
// set. Missing credentials fail its calls, not its construction.
func NewClient() *kms.Client {
	return kms.NewFromConfig(awsenv.Config(), func(o *kms.Options) {
		if ep := cmp.Or(os.Getenv("AWS_ENDPOINT_URL_KMS"), os.Getenv("AWS_ENDPOINT_URL")); ep != "" {
			o.BaseEndpoint = aws.String(ep)
		}
	})
}

// KeyARN is the KMS key the Wrapper uses.
func (w *Wrapper) KeyARN() string { return w.keyARN }

// Wrap encrypts a subject's key under the KMS key, bound to subject.
func (w *Wrapper) Wrap(ctx context.Context, subject string, key []byte) ([]byte, error) {
	if err := checkArgs("wrap", subject, len(key)); err != nil {
		return nil, err
	}
	out, err := w.api.Encrypt(ctx, &kms.EncryptInput{
		KeyId:               aws.String(w.keyARN),
		Plaintext:           key,
		EncryptionAlgorithm: types.EncryptionAlgorithmSpecSymmetricDefault,
		EncryptionContext:   encryptionContext(subject),
	})
	if err != nil {
		return nil, newError("wrap", subject, err)
	}
	if len(out.CiphertextBlob) == 0 {
		return nil, &Error{Op: "wrap", Subject: subject, Kind: ErrUnavailable, Err: errors.New("KMS answered no ciphertext")}
	}
	return out.CiphertextBlob, nil
}

// Unwrap decrypts a key Wrap returned for subject. A key wrapped for
// another subject, by another KMS key, or altered fails with
// ErrInvalidWrapped.
func (w *Wrapper) Unwrap(ctx context.Context, subject string, wrapped []byte) ([]byte, error) {
	if err := checkArgs("unwrap", subject, len(wrapped)); err != nil {
		return nil, err
	}
	// KeyId pins the key: KMS refuses a ciphertext of any other key
	// instead of decrypting it with whichever key made it.
	out, err := w.api.Decrypt(ctx, &kms.DecryptInput{
		KeyId:               aws.String(w.keyARN),
		CiphertextBlob:      wrapped,
		EncryptionAlgorithm: types.EncryptionAlgorithmSpecSymmetricDefault,
		EncryptionContext:   encryptionContext(subject),
	})
	if err != nil {
		return nil, newError("unwrap", subject, err)
	}
	if len(out.Plaintext) == 0 {
		return nil, &Error{Op: "unwrap", Subject: subject, Kind: ErrInvalidWrapped, Err: errors.New("KMS answered no plaintext")}
	}
	return out.Plaintext, nil
}

func encryptionContext(subject string) map[string]string {
	return map[string]string{ContextKey: subject}
}

// checkArgs refuses what KMS would refuse, before a call is paid for.
func checkArgs(op, subject string, n int) error {
	switch {
	case subject == "":
		return fmt.Errorf("kmskey: %s: a subject is required", op)
	case n == 0:
		return fmt.Errorf("kmskey: %s subject %s: no key", op, subject)
	case op == "wrap" && n > MaxKeySize:
		return fmt.Errorf("kmskey: wrap subject %s: a %d-byte key is over KMS's %d bytes", subject, n, MaxKeySize)
	}
	return nil
}
