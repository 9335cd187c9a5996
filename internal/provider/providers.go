package provider

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"

	"github.com/streamops/streamops/internal/pii"
)

// defaultProviders is the provider table used when no file is configured.
//
//go:embed providers.json
var defaultProviders []byte

// Encoding is how an hmac-scheme signature is written in its header.
type Encoding string

// The encodings of an hmac-scheme signature.
const (
	EncodingHex    Encoding = "hex"
	EncodingBase64 Encoding = "base64"
)

// Limits and defaults of a provider's configuration.
const (
	// DefaultMaxBodyBytes is the default Provider.MaxBodyBytes: 1 MiB holds
	// any Stripe or GitHub event we route, and bounds what one delivery can
	// make us parse and store.
	DefaultMaxBodyBytes = 1 << 20
	// MaxBodyBytesLimit caps Provider.MaxBodyBytes: Lambda refuses
	// synchronous payloads above 6 MB, so a larger limit could never apply.
	MaxBodyBytesLimit = 6 << 20
	// MaxProviderNameLen is webhook_events.provider's VARCHAR(50) (seed 004).
	MaxProviderNameLen = 50
)

// providerName is the shape of a provider name: it appears in the URL path,
// the secret's environment variable and webhook_events.provider.
var providerName = regexp.MustCompile(`^[a-z0-9_-]+$`)

// Config is the providers file: {"providers": [...]}.
type Config struct {
	// Providers are the webhook senders we accept, each under its own name.
	Providers []Provider `json:"providers"`
}

// Provider is one webhook sender: how it signs, where its event id and type
// are, how its payload is scrubbed, whether it is a partner, and how its
// event types route. Build it with LoadProviders or NewRegistry, which fill
// defaults and validate; a Provider is read-only afterwards.
type Provider struct {
	// Name identifies the provider in the URL (/webhooks/{name}), in
	// webhook_events.provider and in its secret's name. Lowercase
	// [a-z0-9_-], at most 50 characters. Required.
	Name string `json:"name"`

	// Signature says how deliveries are signed. Required.
	Signature Signature `json:"signature"`

	// EventID is where provider_event_id is read. Default: where the
	// scheme's sender puts it (its entry in schemes, e.g. stripe body "id",
	// github header X-GitHub-Delivery); required for a scheme without one
	// (hmac).
	EventID Field `json:"eventId"`

	// EventType is where event_type is read. Default: where the scheme's
	// sender puts it (e.g. stripe body "type", github header
	// X-GitHub-Event); required for a scheme without one (hmac).
	EventType Field `json:"eventType"`

	// MaxBodyBytes is the largest body accepted; the caller answers 413
	// above it, before verifying. Default DefaultMaxBodyBytes (1 MiB); at
	// most MaxBodyBytesLimit.
	MaxBodyBytes int64 `json:"maxBodyBytes,omitempty"`

	// RedactPaths are extra payload paths scrubbed before storage, on top of
	// the DefaultDenylist keys (see Redact for the path syntax). Default
	// none.
	RedactPaths []string `json:"redactPaths,omitempty"`

	// Partner, when set, makes the provider a partner (seed 000): each
	// delivery is also recorded as an inbound partner event.
	Partner *Partner `json:"partner,omitempty"`

	// Routes map event types to the work they start, first match wins (see
	// Route). Default none: every event is stored and marked skipped.
	Routes []Route `json:"routes,omitempty"`

	// scrubber is DefaultDenylist with RedactPaths, built by NewRegistry
	// (Redact builds one for a Provider that did not come from a Registry).
	scrubber *pii.Scrubber
}

// Signature configures a provider's signature scheme.
type Signature struct {
	// Scheme is one of SchemeNames (the table in scheme.go). Required.
	Scheme Scheme `json:"scheme"`
	// Header carries the signature (hmac only, required there), e.g.
	// "X-Acme-Signature".
	Header string `json:"header,omitempty"`
	// Encoding of the signature, hex or base64 (hmac only). Default hex.
	Encoding Encoding `json:"encoding,omitempty"`
	// Prefix precedes the encoded signature, e.g. "sha256=" (hmac only).
	// Default none.
	Prefix string `json:"prefix,omitempty"`
}

// Field says where a value is read from a delivery: a request header, or a
// gjson path into the JSON body ("id", "data.object.id"). Exactly one is set.
type Field struct {
	Header string `json:"header,omitempty"`
	Path   string `json:"path,omitempty"`
}

// String describes the field for error messages: `header "X-GitHub-Event"`
// or `body field "id"`.
func (f Field) String() string {
	if f.Header != "" {
		return fmt.Sprintf("header %q", f.Header)
	}
	return fmt.Sprintf("body field %q", f.Path)
}

// ConfigError names the configuration field that is wrong and why.
type ConfigError struct {
	// Field locates the value, e.g. "providers[2].routes[0].workflow.steps".
	Field string
	// Reason says what is wrong with it.
	Reason string
}

// Error reads "<field>: <reason>".
func (e *ConfigError) Error() string { return e.Field + ": " + e.Reason }

// configErrors collects every problem of a configuration, so one run of the
// validator reports them all.
type configErrors []error

func (c *configErrors) add(field, format string, args ...any) {
	*c = append(*c, &ConfigError{Field: field, Reason: fmt.Sprintf(format, args...)})
}

// oneOf writes choices as a sentence: "a, b or c".
func oneOf(choices []string) string {
	if len(choices) < 2 {
		return strings.Join(choices, "")
	}
	return strings.Join(choices[:len(choices)-1], ", ") + " or " + choices[len(choices)-1]
}

func (c *Config) setDefaults() {
	for i := range c.Providers {
		c.Providers[i].setDefaults()
	}
}

// Validate checks the whole configuration, defaults filled (NewRegistry
// fills them first), and reports every problem, each a *ConfigError naming
// its field (joined with errors.Join).
func (c *Config) Validate() error {
	var errs configErrors
	if len(c.Providers) == 0 {
		errs.add("providers", "needs at least one provider")
	}
	seen := map[string]int{}
	for i := range c.Providers {
		field := fmt.Sprintf("providers[%d]", i)
		name := c.Providers[i].Name
		if j, dup := seen[name]; dup && name != "" {
			errs.add(field+".name", "%q is already the name of providers[%d]", name, j)
		}
		seen[name] = i
		c.Providers[i].validate(field, &errs)
	}
	checkPartnerIDs(c.Providers, &errs)
	return errors.Join(errs...)
}

func (p *Provider) setDefaults() {
	sc, _ := lookupScheme(p.Signature.Scheme)
	if p.EventID == (Field{}) {
		p.EventID = sc.eventID
	}
	if p.EventType == (Field{}) {
		p.EventType = sc.eventType
	}
	if p.MaxBodyBytes == 0 {
		p.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if sc.configure != nil {
		sc.configure(&p.Signature)
	}
	for i := range p.Routes {
		p.Routes[i].setDefaults()
	}
}

func (p *Provider) validate(field string, errs *configErrors) {
	switch {
	case p.Name == "":
		errs.add(field+".name", "is required")
	case len(p.Name) > MaxProviderNameLen:
		errs.add(field+".name", "is %d characters, longer than %d", len(p.Name), MaxProviderNameLen)
	case !providerName.MatchString(p.Name):
		errs.add(field+".name", "%q must be lowercase letters, digits, '-' or '_'", p.Name)
	}
	p.Signature.validate(field+".signature", errs)
	p.EventID.validate(field+".eventId", errs)
	p.EventType.validate(field+".eventType", errs)
	if p.MaxBodyBytes < 0 || p.MaxBodyBytes > MaxBodyBytesLimit {
		errs.add(field+".maxBodyBytes", "%d is outside 1..%d", p.MaxBodyBytes, MaxBodyBytesLimit)
	}
	for i, path := range p.RedactPaths {
		if _, err := pii.ParsePath(path); err != nil {
			errs.add(fmt.Sprintf("%s.redactPaths[%d]", field, i), "%v", err)
		}
	}
	if p.Partner != nil {
		p.Partner.validate(field+".partner", errs)
	}
	for i := range p.Routes {
		p.Routes[i].validate(fmt.Sprintf("%s.routes[%d]", field, i), errs)
	}
}

func (s Signature) validate(field string, errs *configErrors) {
	sc, known := lookupScheme(s.Scheme)
	switch {
	case s.Scheme == "":
		errs.add(field+".scheme", "is required (%s)", oneOf(SchemeNames()))
	case !known:
		errs.add(field+".scheme", "%q must be %s", s.Scheme, oneOf(SchemeNames()))
	case sc.check != nil:
		sc.check(s, field, errs)
	case s.Header != "" || s.Encoding != "" || s.Prefix != "":
		errs.add(field, "header, encoding and prefix apply to the hmac scheme only, not %s", s.Scheme)
	}
}

func (f Field) validate(field string, errs *configErrors) {
	switch {
	case f.Header == "" && f.Path == "":
		errs.add(field, "needs a header or a path (no default for this scheme)")
	case f.Header != "" && f.Path != "":
		errs.add(field, "takes a header or a path, not both")
	}
}

// Registry holds the validated providers by name.
type Registry struct {
	providers map[string]*Provider
	names     []string
}

// NewRegistry fills cfg's defaults, validates it and indexes its providers.
// It works on a deep copy, so neither side can change the other's providers
// afterwards.
func NewRegistry(cfg Config) (*Registry, error) {
	cfg, err := cloneConfig(cfg)
	if err != nil {
		return nil, err
	}
	cfg.setDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	r := &Registry{providers: make(map[string]*Provider, len(cfg.Providers))}
	for i := range cfg.Providers {
		p := cfg.Providers[i]
		if p.scrubber, err = pii.Default.WithPaths(p.RedactPaths...); err != nil {
			return nil, err // validated above
		}
		r.providers[p.Name] = &p
		r.names = append(r.names, p.Name)
	}
	return r, nil
}

// cloneConfig deep-copies cfg through its JSON form, which holds every field.
func cloneConfig(cfg Config) (Config, error) {
	raw, err := json.Marshal(cfg)
	if err != nil {
		return Config{}, fmt.Errorf("webhook: copy providers: %w", err)
	}
	var out Config
	if err := json.Unmarshal(raw, &out); err != nil {
		return Config{}, fmt.Errorf("webhook: copy providers: %w", err)
	}
	return out, nil
}

// LoadProviders reads the providers file at path, or the embedded default
// providers.json when path is "" (app.Providers reads path from
// STREAMOPS_PROVIDERS_FILE). Unknown JSON fields are rejected, so a typo in
// an option fails at start rather than silently using a default.
func LoadProviders(path string) (*Registry, error) {
	raw, source := defaultProviders, "embedded providers.json"
	if path != "" {
		var err error
		if raw, err = os.ReadFile(path); err != nil {
			return nil, fmt.Errorf("webhook: read providers: %w", err)
		}
		source = path
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var cfg Config
	if err := dec.Decode(&cfg); err != nil {
		return nil, fmt.Errorf("webhook: %s: %w", source, err)
	}
	r, err := NewRegistry(cfg)
	if err != nil {
		return nil, fmt.Errorf("webhook: %s: %w", source, err)
	}
	return r, nil
}

// Provider returns the provider called name. Names are lowercase and the
// lookup is exact, so the caller lowercases a name taken from the URL.
func (r *Registry) Provider(name string) (*Provider, bool) {
	p, ok := r.providers[name]
	return p, ok
}

// Names lists the providers in configuration order.
func (r *Registry) Names() []string { return append([]string(nil), r.names...) }

// TooLarge reports whether a body of n bytes exceeds MaxBodyBytes.
func (p *Provider) TooLarge(n int) bool { return int64(n) > p.MaxBodyBytes }
