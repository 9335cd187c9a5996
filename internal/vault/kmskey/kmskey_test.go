package kmskey_test

import (
	"bytes"
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/json"
	"errors"
	"sort"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/kms"
	"github.com/aws/aws-sdk-go-v2/service/kms/types"
	"github.com/aws/smithy-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/internal/vault/kmskey"
)

const (
	keyARN   = "arn:aws:kms:eu-west-1:111111111111:key/1234abcd-12ab-34cd-56ef-1234567890ab"
	otherARN = "arn:aws:kms:eu-west-1:111111111111:key/ffffffff-12ab-34cd-56ef-1234567890ab"
	subject  = "k3j5m7n2p4q6r8s2t4u6v7w2xa"
)

// fakeKMS encrypts like KMS as far as the Wrapper can tell: AES-GCM under
// a secret per key ARN, the encryption context as additional data, the
// key's ARN inside the blob, so a blob decrypts only under its own key
// and context. fail, when set for an operation, is its answer instead.
type fakeKMS struct {
	mu       sync.Mutex
	keys     map[string]cipher.AEAD
	fail     map[string]error // "Encrypt" / "Decrypt"
	encrypts []*kms.EncryptInput
	decrypts []*kms.DecryptInput
}

func newFakeKMS(t *testing.T, arns ...string) *fakeKMS {
	t.Helper()
	f := &fakeKMS{keys: map[string]cipher.AEAD{}, fail: map[string]error{}}
	for _, arn := range arns {
		secret := make([]byte, 32)
		_, _ = rand.Read(secret)
		block, err := aes.NewCipher(secret)
		require.NoError(t, err)
		aead, err := cipher.NewGCM(block)
		require.NoError(t, err)
		f.keys[arn] = aead
	}
	return f
}

// aad is the encryption context in a canonical form.
func aad(ctx map[string]string) []byte {
	keys := make([]string, 0, len(ctx))
	for k := range ctx {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	pairs := make([][2]string, 0, len(keys))
	for _, k := range keys {
		pairs = append(pairs, [2]string{k, ctx[k]})
	}
	b, _ := json.Marshal(pairs)
	return b
}

func (f *fakeKMS) Encrypt(_ context.Context, in *kms.EncryptInput, _ ...func(*kms.Options)) (*kms.EncryptOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.encrypts = append(f.encrypts, in)
	if err := f.fail["Encrypt"]; err != nil {
		return nil, err
	}
	arn := aws.ToString(in.KeyId)
	aead, ok := f.keys[arn]
	if !ok {
		return nil, &types.NotFoundException{Message: aws.String("Key '" + arn + "' does not exist")}
	}
	nonce := make([]byte, aead.NonceSize())
	_, _ = rand.Read(nonce)
	blob := append([]byte{byte(len(arn))}, arn...)
	blob = append(blob, nonce...)
	blob = aead.Seal(blob, nonce, in.Plaintext, aad(in.EncryptionContext))
	return &kms.EncryptOutput{CiphertextBlob: blob, KeyId: in.KeyId}, nil
}

func (f *fakeKMS) Decrypt(_ context.Context, in *kms.DecryptInput, _ ...func(*kms.Options)) (*kms.DecryptOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.decrypts = append(f.decrypts, in)
	if err := f.fail["Decrypt"]; err != nil {
		return nil, err
	}
	blob := in.CiphertextBlob
	invalid := &types.InvalidCiphertextException{Message: aws.String("")}
	if len(blob) < 1 || len(blob) < 1+int(blob[0]) {
		return nil, invalid
	}
	madeBy := string(blob[1 : 1+blob[0]])
	if want := aws.ToString(in.KeyId); want != "" && want != madeBy {
		return nil, &types.IncorrectKeyException{Message: aws.String("the ciphertext was made by another key")}
	}
	aead, ok := f.keys[madeBy]
	if !ok {
		return nil, invalid
	}
	rest := blob[1+blob[0]:]
	if len(rest) < aead.NonceSize() {
		return nil, invalid
	}
	plain, err := aead.Open(nil, rest[:aead.NonceSize()], rest[aead.NonceSize():], aad(in.EncryptionContext))
	if err != nil {
		return nil, invalid
	}
	return &kms.DecryptOutput{Plaintext: plain, KeyId: aws.String(madeBy)}, nil
}

func (f *fakeKMS) calls() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.encrypts) + len(f.decrypts)
}

func subjectKey(t *testing.T) []byte {
	t.Helper()
	key := make([]byte, 32)
	_, err := rand.Read(key)
	require.NoError(t, err)
	return key
}

func TestWrapBindsTheKeyToItsSubjectAndUnwrapReturnsIt(t *testing.T) {
	fake := newFakeKMS(t, keyARN)
	w, err := kmskey.New(fake, keyARN)
	require.NoError(t, err)
	key := subjectKey(t)

	wrapped, err := w.Wrap(t.Context(), subject, key)
	require.NoError(t, err)
	assert.False(t, bytes.Contains(wrapped, key), "the wrapped key holds the key in clear")

	require.Len(t, fake.encrypts, 1)
	in := fake.encrypts[0]
	assert.Equal(t, keyARN, aws.ToString(in.KeyId))
	assert.Equal(t, map[string]string{"streamops:subject": subject}, in.EncryptionContext)
	assert.Equal(t, types.EncryptionAlgorithmSpecSymmetricDefault, in.EncryptionAlgorithm)

	got, err := w.Unwrap(t.Context(), subject, wrapped)
	require.NoError(t, err)
	assert.Equal(t, key, got)
	require.Len(t, fake.decrypts, 1)
	assert.Equal(t, keyARN, aws.ToString(fake.decrypts[0].KeyId), "Decrypt must pin the key")
	assert.Equal(t, map[string]string{"streamops:subject": subject}, fake.decrypts[0].EncryptionContext)
}

func TestAWrappedKeyDoesNotUnwrapUnderAnotherSubjectOrKey(t *testing.T) {
	fake := newFakeKMS(t, keyARN, otherARN)
	w, err := kmskey.New(fake, keyARN)
	require.NoError(t, err)
	other, err := kmskey.New(fake, otherARN)
	require.NoError(t, err)
	wrapped, err := w.Wrap(t.Context(), subject, subjectKey(t))
	require.NoError(t, err)
	otherKeys, err := other.Wrap(t.Context(), subject, subjectKey(t))
	require.NoError(t, err)
	flipped := bytes.Clone(wrapped)
	flipped[len(flipped)-1] ^= 1

	tests := []struct {
		name    string
		subject string
		wrapped []byte
		code    string
	}{
		{"another subject", "abcdefghijklmnopqrstuvwxyz", wrapped, "InvalidCiphertextException"},
		{"the subject of another generation", subject + ".2", wrapped, "InvalidCiphertextException"},
		{"altered", subject, flipped, "InvalidCiphertextException"},
		{"wrapped by another KMS key", subject, otherKeys, "IncorrectKeyException"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := w.Unwrap(t.Context(), tt.subject, tt.wrapped)
			require.Error(t, err)
			assert.Nil(t, got)
			assert.ErrorIs(t, err, kmskey.ErrInvalidWrapped)
			assert.False(t, kmskey.IsRetryable(err))
			var e *kmskey.Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, "unwrap", e.Op)
			assert.Equal(t, tt.subject, e.Subject)
			assert.Equal(t, tt.code, e.Code)
		})
	}
}

func TestKMSFailuresAreTypedAndOnlyTransientOnesRetry(t *testing.T) {
	generic := func(code string, fault smithy.ErrorFault) error {
		return &smithy.GenericAPIError{Code: code, Message: "from KMS", Fault: fault}
	}
	// opError is how the SDK returns a service's answer.
	opError := func(op string, err error) error {
		return &smithy.OperationError{ServiceID: "KMS", OperationName: op, Err: err}
	}
	tests := []struct {
		name      string
		err       error
		kind      error
		retryable bool
	}{
		{"key missing", &types.NotFoundException{Message: aws.String("no such key")}, kmskey.ErrKeyUnusable, false},
		{"key disabled", &types.DisabledException{Message: aws.String("disabled")}, kmskey.ErrKeyUnusable, false},
		{"key pending deletion", &types.KMSInvalidStateException{Message: aws.String("pending deletion")}, kmskey.ErrKeyUnusable, false},
		{"not an encryption key", &types.InvalidKeyUsageException{Message: aws.String("sign/verify")}, kmskey.ErrKeyUnusable, false},
		{"access denied", generic("AccessDeniedException", smithy.FaultClient), kmskey.ErrAccessDenied, false},
		{"expired credentials", generic("ExpiredTokenException", smithy.FaultClient), kmskey.ErrAccessDenied, false},
		{"throttled", generic("ThrottlingException", smithy.FaultClient), kmskey.ErrThrottled, true},
		{"key store unavailable", &types.KeyUnavailableException{Message: aws.String("try again")}, kmskey.ErrUnavailable, true},
		{"dependency timeout", &types.DependencyTimeoutException{Message: aws.String("slow")}, kmskey.ErrUnavailable, true},
		{"internal error", &types.KMSInternalException{Message: aws.String("oops")}, kmskey.ErrUnavailable, true},
		{"unknown server fault", generic("SomethingNew", smithy.FaultServer), kmskey.ErrUnavailable, true},
		{"no answer", errors.New("dial tcp: connection refused"), kmskey.ErrUnavailable, true},
		{"unknown client fault", generic("SomethingNew", smithy.FaultClient), nil, false},
		{"the caller's deadline", context.DeadlineExceeded, nil, false},
	}
	for _, op := range []string{"Encrypt", "Decrypt"} {
		for _, tt := range tests {
			t.Run(op+"/"+tt.name, func(t *testing.T) {
				fake := newFakeKMS(t, keyARN)
				w, err := kmskey.New(fake, keyARN)
				require.NoError(t, err)
				wrapped, err := w.Wrap(t.Context(), subject, subjectKey(t))
				require.NoError(t, err)
				fake.fail[op] = opError(op, tt.err)

				if op == "Encrypt" {
					_, err = w.Wrap(t.Context(), subject, subjectKey(t))
				} else {
					_, err = w.Unwrap(t.Context(), subject, wrapped)
				}
				require.Error(t, err)
				for _, kind := range []error{kmskey.ErrKeyUnusable, kmskey.ErrAccessDenied, kmskey.ErrThrottled,
					kmskey.ErrUnavailable, kmskey.ErrInvalidWrapped} {
					assert.Equal(t, kind == tt.kind, errors.Is(err, kind), "errors.Is(err, %v)", kind)
				}
				assert.Equal(t, tt.retryable, kmskey.IsRetryable(err))
				assert.ErrorIs(t, err, tt.err, "the SDK's error stays inspectable")
				var opErr *smithy.OperationError
				assert.ErrorAs(t, err, &opErr)
				assert.Contains(t, err.Error(), subject)
			})
		}
	}
}

func TestServiceExceptionsStayReachableWithErrorsAs(t *testing.T) {
	fake := newFakeKMS(t, keyARN)
	w, err := kmskey.New(fake, "arn:aws:kms:eu-west-1:111111111111:key/deleted")
	require.NoError(t, err)
	_, err = w.Wrap(t.Context(), subject, subjectKey(t))
	var nf *types.NotFoundException
	require.ErrorAs(t, err, &nf)
	assert.ErrorIs(t, err, kmskey.ErrKeyUnusable)
}

func TestArgumentsKMSWouldRefuseAreRefusedBeforeACall(t *testing.T) {
	tests := []struct {
		name    string
		op      string
		subject string
		key     []byte
	}{
		{"wrap without a subject", "wrap", "", make([]byte, 32)},
		{"wrap no key", "wrap", subject, nil},
		{"wrap a key over 4096 bytes", "wrap", subject, make([]byte, kmskey.MaxKeySize+1)},
		{"unwrap without a subject", "unwrap", "", []byte("blob")},
		{"unwrap nothing", "unwrap", subject, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := newFakeKMS(t, keyARN)
			w, err := kmskey.New(fake, keyARN)
			require.NoError(t, err)
			if tt.op == "wrap" {
				_, err = w.Wrap(t.Context(), tt.subject, tt.key)
			} else {
				_, err = w.Unwrap(t.Context(), tt.subject, tt.key)
			}
			assert.Error(t, err)
			assert.False(t, kmskey.IsRetryable(err))
			assert.Zero(t, fake.calls())
		})
	}
	fake := newFakeKMS(t, keyARN)
	w, err := kmskey.New(fake, keyARN)
	require.NoError(t, err)
	_, err = w.Wrap(t.Context(), subject, make([]byte, kmskey.MaxKeySize))
	assert.NoError(t, err, "a key of exactly KMS's limit is accepted")
}

func TestNewNeedsAClientAndAKey(t *testing.T) {
	_, err := kmskey.New(nil, keyARN)
	assert.Error(t, err)
	_, err = kmskey.New(newFakeKMS(t), "")
	assert.ErrorContains(t, err, "STREAMOPS_PII_KMS_KEY_ARN")
	w, err := kmskey.New(newFakeKMS(t), keyARN)
	require.NoError(t, err)
	assert.Equal(t, keyARN, w.KeyARN())
}
