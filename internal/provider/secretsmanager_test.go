package provider_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/internal/provider"
)

// fakeSecretsManager serves SecretString values by secret id and counts
// calls; fail makes the next calls error.
type fakeSecretsManager struct {
	mu      sync.Mutex
	values  map[string]string
	binary  map[string][]byte
	fail    error
	calls   atomic.Int32
	lastIDs []string
	delay   time.Duration
}

func (f *fakeSecretsManager) GetSecretValue(_ context.Context, in *secretsmanager.GetSecretValueInput, _ ...func(*secretsmanager.Options)) (*secretsmanager.GetSecretValueOutput, error) {
	f.calls.Add(1)
	time.Sleep(f.delay)
	f.mu.Lock()
	defer f.mu.Unlock()
	id := aws.ToString(in.SecretId)
	f.lastIDs = append(f.lastIDs, id)
	if f.fail != nil {
		return nil, f.fail
	}
	if b, ok := f.binary[id]; ok {
		return &secretsmanager.GetSecretValueOutput{Name: in.SecretId, SecretBinary: b}, nil
	}
	v, ok := f.values[id]
	if !ok {
		return nil, errors.New("ResourceNotFoundException: Secrets Manager can't find the specified secret")
	}
	return &secretsmanager.GetSecretValueOutput{Name: in.SecretId, SecretString: aws.String(v)}, nil
}

func (f *fakeSecretsManager) set(id, value string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.values[id] = value
}

// clock is a settable time source.
type clock struct{ t atomic.Int64 }

func (c *clock) now() time.Time          { return time.Unix(0, c.t.Load()) }
func (c *clock) advance(d time.Duration) { c.t.Add(int64(d)) }
func newClock(t time.Time) *clock        { c := &clock{}; c.t.Store(t.UnixNano()); return c }

var _ provider.GetSecretValueAPI = (*fakeSecretsManager)(nil)

func TestSecretsManagerSecretFormats(t *testing.T) {
	tests := []struct {
		name  string
		value string
		want  []string
	}{
		{"single", "whsec_abc", []string{"whsec_abc"}},
		{"comma-separated, trimmed", " whsec_new , whsec_old ,", []string{"whsec_new", "whsec_old"}},
		{"JSON array", `["whsec_new", " whsec_old ", ""]`, []string{"whsec_new", "whsec_old"}},
		{"JSON object", `{"secrets": ["whsec_new", "whsec_old"], "rotatedAt": "2025-01-15"}`, []string{"whsec_new", "whsec_old"}},
		{"empty", "  ", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := &fakeSecretsManager{values: map[string]string{"streamops/webhook/stripe": tt.value}}
			src, err := provider.NewSecretsManagerSecrets(fake, provider.SecretsManagerOptions{})
			require.NoError(t, err)

			got, err := src.Secrets(context.Background(), "stripe")

			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, []string{"streamops/webhook/stripe"}, fake.lastIDs)
		})
	}
}

func TestSecretsManagerRejectsMalformedJSON(t *testing.T) {
	tests := []struct{ name, value, want string }{
		{"array of numbers", `[1, 2]`, "value is not a JSON array of strings"},
		{"object without a string list", `{"secrets": "whsec_a"}`, `value is not {"secrets": [strings]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := &fakeSecretsManager{values: map[string]string{"streamops/webhook/acme": tt.value}}
			src, err := provider.NewSecretsManagerSecrets(fake, provider.SecretsManagerOptions{})
			require.NoError(t, err)

			_, err = src.Secrets(context.Background(), "acme")

			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
			assert.NotContains(t, err.Error(), "whsec_a")
		})
	}
}

func TestSecretsManagerReadsABinarySecretAsText(t *testing.T) {
	fake := &fakeSecretsManager{binary: map[string][]byte{"streamops/webhook/github": []byte("gh-1,gh-2")}}
	src, err := provider.NewSecretsManagerSecrets(fake, provider.SecretsManagerOptions{})
	require.NoError(t, err)

	got, err := src.Secrets(context.Background(), "github")

	require.NoError(t, err)
	assert.Equal(t, []string{"gh-1", "gh-2"}, got)
}

func TestSecretsManagerCachesPerProviderUntilTheTTL(t *testing.T) {
	fake := &fakeSecretsManager{values: map[string]string{
		"prod/hooks/stripe": "whsec_1",
		"prod/hooks/github": "gh-1",
	}}
	clk := newClock(now)
	src, err := provider.NewSecretsManagerSecrets(fake, provider.SecretsManagerOptions{Prefix: "prod/hooks/", TTL: time.Minute, Now: clk.now})
	require.NoError(t, err)
	ctx := context.Background()

	for range 3 {
		got, err := src.Secrets(ctx, "stripe")
		require.NoError(t, err)
		assert.Equal(t, []string{"whsec_1"}, got)
	}
	assert.Equal(t, int32(1), fake.calls.Load(), "fresh entries are served from the cache")

	_, err = src.Secrets(ctx, "github")
	require.NoError(t, err)
	assert.Equal(t, int32(2), fake.calls.Load(), "each provider has its own entry")

	fake.set("prod/hooks/stripe", "whsec_2,whsec_1")
	clk.advance(59 * time.Second)
	got, err := src.Secrets(ctx, "stripe")
	require.NoError(t, err)
	assert.Equal(t, []string{"whsec_1"}, got, "still within the TTL")

	clk.advance(time.Second)
	got, err = src.Secrets(ctx, "stripe")
	require.NoError(t, err)
	assert.Equal(t, []string{"whsec_2", "whsec_1"}, got, "a rotation is seen once the TTL expires")
	assert.Equal(t, int32(3), fake.calls.Load())
}

func TestSecretsManagerDoesNotCacheAFailure(t *testing.T) {
	fake := &fakeSecretsManager{values: map[string]string{"streamops/webhook/stripe": "whsec_1"}, fail: errors.New("ThrottlingException")}
	src, err := provider.NewSecretsManagerSecrets(fake, provider.SecretsManagerOptions{})
	require.NoError(t, err)
	ctx := context.Background()

	_, err = src.Secrets(ctx, "stripe")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "webhook: get secret streamops/webhook/stripe: ThrottlingException")

	fake.mu.Lock()
	fake.fail = nil
	fake.mu.Unlock()
	got, err := src.Secrets(ctx, "stripe")

	require.NoError(t, err)
	assert.Equal(t, []string{"whsec_1"}, got)
	assert.Equal(t, int32(2), fake.calls.Load())
}

func TestSecretsManagerConcurrentMissesMakeOneCall(t *testing.T) {
	fake := &fakeSecretsManager{values: map[string]string{"streamops/webhook/stripe": "whsec_1"}, delay: 20 * time.Millisecond}
	src, err := provider.NewSecretsManagerSecrets(fake, provider.SecretsManagerOptions{})
	require.NoError(t, err)

	var wg sync.WaitGroup
	for range 32 {
		wg.Go(func() {
			got, err := src.Secrets(context.Background(), "stripe")
			assert.NoError(t, err)
			assert.Equal(t, []string{"whsec_1"}, got)
		})
	}
	wg.Wait()

	assert.Equal(t, int32(1), fake.calls.Load())
}

func TestSecretsManagerReturnsACopyOfTheCache(t *testing.T) {
	fake := &fakeSecretsManager{values: map[string]string{"streamops/webhook/stripe": "whsec_1"}}
	src, err := provider.NewSecretsManagerSecrets(fake, provider.SecretsManagerOptions{})
	require.NoError(t, err)

	got, err := src.Secrets(context.Background(), "stripe")
	require.NoError(t, err)
	got[0] = "tampered"

	again, err := src.Secrets(context.Background(), "stripe")
	require.NoError(t, err)
	assert.Equal(t, []string{"whsec_1"}, again)
}

func TestSecretsManagerOptionsAreValidated(t *testing.T) {
	_, err := provider.NewSecretsManagerSecrets(nil, provider.SecretsManagerOptions{})
	assert.EqualError(t, err, "webhook: secrets manager options: api: is required")

	_, err = provider.NewSecretsManagerSecrets(&fakeSecretsManager{}, provider.SecretsManagerOptions{TTL: -time.Second})
	assert.EqualError(t, err, "webhook: secrets manager options: TTL: -1s must not be negative")
}

func TestSecretsManagerClientSatisfiesTheInterface(t *testing.T) {
	var _ provider.GetSecretValueAPI = secretsmanager.New(secretsmanager.Options{Region: "eu-west-1"})
}
