package provider

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
)

// GetSecretValueAPI is the one Secrets Manager call SecretsManagerSecrets
// makes; *secretsmanager.Client satisfies it, tests pass a fake.
type GetSecretValueAPI interface {
	GetSecretValue(ctx context.Context, in *secretsmanager.GetSecretValueInput, optFns ...func(*secretsmanager.Options)) (*secretsmanager.GetSecretValueOutput, error)
}

// Defaults of SecretsManagerOptions.
const (
	DefaultSecretPrefix = "streamops/webhook/"
	DefaultSecretTTL    = 5 * time.Minute
)

// SecretsManagerOptions configure SecretsManagerSecrets.
type SecretsManagerOptions struct {
	// Prefix is prepended to the provider name to form the secret id.
	// Default DefaultSecretPrefix ("streamops/webhook/"), so one IAM policy
	// on streamops/webhook/* grants every provider.
	Prefix string
	// TTL is how long fetched secrets are reused. Default DefaultSecretTTL
	// (5 min): a warm Lambda calls Secrets Manager a dozen times an hour
	// instead of once per delivery, and a rotated secret is picked up within
	// minutes (keep the old one active that long).
	TTL time.Duration
	// Now is the clock. Default time.Now; tests move it.
	Now func() time.Time
}

func (o *SecretsManagerOptions) setDefaults() {
	o.Prefix = cmp.Or(o.Prefix, DefaultSecretPrefix)
	o.TTL = cmp.Or(o.TTL, DefaultSecretTTL)
	if o.Now == nil {
		o.Now = time.Now
	}
}

// Validate refuses a negative TTL.
func (o *SecretsManagerOptions) Validate() error {
	if o.TTL < 0 {
		return &ConfigError{Field: "TTL", Reason: fmt.Sprintf("%s must not be negative", o.TTL)}
	}
	return nil
}

// SecretsManagerSecrets reads a provider's secrets from the Secrets Manager
// secret <Prefix><provider>, whose SecretString is a comma-separated list,
// a JSON array of strings, or {"secrets": [...]}. Results are cached per
// provider for TTL and shared across invocations of a warm Lambda; a failed
// fetch is not cached, so the next delivery tries again. Safe for
// concurrent use; concurrent misses for one provider make one call.
type SecretsManagerSecrets struct {
	api  GetSecretValueAPI
	opts SecretsManagerOptions

	mu      sync.Mutex
	entries map[string]*cachedSecrets
}

// cachedSecrets is one provider's cache entry; its own lock serialises
// fetches for that provider without blocking the others.
type cachedSecrets struct {
	mu      sync.Mutex
	secrets []string
	expires time.Time
}

// NewSecretsManagerSecrets builds a SecretSource on api with opts' defaults
// filled in.
func NewSecretsManagerSecrets(api GetSecretValueAPI, opts SecretsManagerOptions) (*SecretsManagerSecrets, error) {
	if api == nil {
		return nil, fmt.Errorf("webhook: secrets manager options: %w", &ConfigError{Field: "api", Reason: "is required"})
	}
	opts.setDefaults()
	if err := opts.Validate(); err != nil {
		return nil, fmt.Errorf("webhook: secrets manager options: %w", err)
	}
	return &SecretsManagerSecrets{api: api, opts: opts, entries: map[string]*cachedSecrets{}}, nil
}

// Secrets returns the provider's secrets, from the cache while it is fresh.
func (s *SecretsManagerSecrets) Secrets(ctx context.Context, provider string) ([]string, error) {
	e := s.entry(provider)
	e.mu.Lock()
	defer e.mu.Unlock()
	now := s.opts.Now()
	if e.secrets != nil && now.Before(e.expires) {
		return append([]string(nil), e.secrets...), nil
	}
	id := s.opts.Prefix + provider
	out, err := s.api.GetSecretValue(ctx, &secretsmanager.GetSecretValueInput{SecretId: aws.String(id)})
	if err != nil {
		return nil, fmt.Errorf("webhook: get secret %s: %w", id, err)
	}
	secrets, err := parseSecretString(secretValue(out))
	if err != nil {
		return nil, fmt.Errorf("webhook: secret %s: %w", id, err)
	}
	e.secrets, e.expires = secrets, now.Add(s.opts.TTL)
	return append([]string(nil), secrets...), nil
}

func (s *SecretsManagerSecrets) entry(provider string) *cachedSecrets {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.entries[provider]
	if !ok {
		e = &cachedSecrets{}
		s.entries[provider] = e
	}
	return e
}

// secretValue is the secret's string, or its binary read as text.
func secretValue(out *secretsmanager.GetSecretValueOutput) string {
	switch {
	case out == nil:
		return ""
	case out.SecretString != nil:
		return *out.SecretString
	}
	return string(out.SecretBinary)
}

// parseSecretString reads a comma-separated list, a JSON array of strings
// or {"secrets": [...]}, trimming entries and dropping empty ones. The
// result is never nil: the cache tells a fetched empty list from a miss.
func parseSecretString(s string) ([]string, error) {
	s = strings.TrimSpace(s)
	var list []string
	switch {
	case strings.HasPrefix(s, "["):
		if err := json.Unmarshal([]byte(s), &list); err != nil {
			return nil, errors.New("value is not a JSON array of strings")
		}
	case strings.HasPrefix(s, "{"):
		var doc struct {
			Secrets []string `json:"secrets"`
		}
		if err := json.Unmarshal([]byte(s), &doc); err != nil {
			return nil, errors.New(`value is not {"secrets": [strings]}`)
		}
		list = doc.Secrets
	default:
		list = strings.Split(s, ",")
	}
	out := []string{}
	for _, v := range list {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out, nil
}
