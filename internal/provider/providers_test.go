package provider_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/events/eventstest"
	"github.com/streamops/streamops/internal/provider"
)

func TestDefaultProvidersAreStripeGitHubStandardAndPartnerAcme(t *testing.T) {
	reg, err := provider.LoadProviders("")
	require.NoError(t, err)
	assert.Equal(t, []string{"stripe", "github", "standard", "acme"}, reg.Names())

	tests := []struct {
		name      string
		scheme    provider.Scheme
		eventID   provider.Field
		eventType provider.Field
		partner   bool
	}{
		{"stripe", provider.SchemeStripe, provider.Field{Path: "id"}, provider.Field{Path: "type"}, false},
		{"github", provider.SchemeGitHub, provider.Field{Header: "X-GitHub-Delivery"}, provider.Field{Header: "X-GitHub-Event"}, false},
		{"standard", provider.SchemeStandard, provider.Field{Header: "webhook-id"}, provider.Field{Path: "type"}, false},
		{"acme", provider.SchemeHMAC, provider.Field{Path: "eventId"}, provider.Field{Path: "eventType"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, ok := reg.Provider(tt.name)
			require.True(t, ok)
			assert.Equal(t, tt.scheme, p.Signature.Scheme)
			assert.Equal(t, tt.eventID, p.EventID)
			assert.Equal(t, tt.eventType, p.EventType)
			assert.Equal(t, int64(provider.DefaultMaxBodyBytes), p.MaxBodyBytes)
			assert.Equal(t, tt.partner, p.Partner != nil)
		})
	}

	acme, _ := reg.Provider("acme")
	assert.Equal(t, provider.Signature{Scheme: provider.SchemeHMAC, Header: "X-Acme-Signature", Encoding: provider.EncodingHex, Prefix: "sha256="}, acme.Signature)
	assert.Equal(t, &provider.Partner{PartnerID: "acme", PartnerName: "Acme Corp", EntityIDPath: "order.id", EntityType: "Order"}, acme.Partner)

	_, ok := reg.Provider("Stripe")
	assert.False(t, ok, "lookup is exact; names are lowercase")
}

func TestProviderBodyLimit(t *testing.T) {
	p := defaultProvider(t, "stripe")
	assert.False(t, p.TooLarge(1<<20))
	assert.True(t, p.TooLarge(1<<20+1))
}

func TestLoadProvidersFromFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "providers.json")
	require.NoError(t, os.WriteFile(path, []byte(`{"providers": [{
		"name": "polar",
		"signature": {"scheme": "standard"},
		"eventType": {"path": "type"},
		"maxBodyBytes": 65536,
		"redactPaths": ["data.customer.*"],
		"routes": [{"match": "subscription.*", "task": {"type": "report_generation", "maxRetries": 5}}]
	}]}`), 0o600))

	reg, err := provider.LoadProviders(path)
	require.NoError(t, err)

	p, ok := reg.Provider("polar")
	require.True(t, ok)
	assert.Equal(t, int64(65536), p.MaxBodyBytes)
	assert.Equal(t, provider.Field{Header: "webhook-id"}, p.EventID, "scheme default")
	r, ok := p.Route("subscription.updated")
	require.True(t, ok)
	assert.Equal(t, &provider.TaskTemplate{Type: events.TaskReportGeneration, MaxRetries: 5}, r.Task)
}

func TestLoadProvidersReportsUnreadableOrUnknownInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		path := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(path, []byte(content), 0o600))
		return path
	}
	tests := []struct {
		name string
		path string
		want string
	}{
		{"missing file", filepath.Join(dir, "absent.json"), "webhook: read providers"},
		{"not JSON", write("bad.json", "providers:\n  - stripe"), "bad.json: invalid character"},
		{"typo in an option", write("typo.json", `{"providers":[{"name":"stripe","signature":{"scheme":"stripe"},"maxBodyByte":10}]}`),
			`unknown field "maxBodyByte"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := provider.LoadProviders(tt.path)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

func TestProviderConfigErrorsNameTheBadField(t *testing.T) {
	stripe := `{"name":"stripe","signature":{"scheme":"stripe"}}`
	tests := []struct {
		name      string
		providers string
		want      string
	}{
		{"no providers", ``, "providers: needs at least one provider"},
		{"missing name", `{"signature":{"scheme":"stripe"}}`, "providers[0].name: is required"},
		{"upper-case name", `{"name":"Stripe","signature":{"scheme":"stripe"}}`, `providers[0].name: "Stripe" must be lowercase letters, digits, '-' or '_'`},
		{"duplicate name", stripe + `,` + stripe, `providers[1].name: "stripe" is already the name of providers[0]`},
		{"unknown scheme", `{"name":"x","signature":{"scheme":"` + eventstest.Unlisted + `"}}`, `providers[0].signature.scheme: "` + eventstest.Unlisted + `" must be ` + sentence(provider.SchemeNames())},
		{"hmac without header", `{"name":"x","signature":{"scheme":"hmac"},"eventId":{"path":"id"},"eventType":{"path":"t"}}`,
			"providers[0].signature.header: is required for the hmac scheme"},
		{"hmac with a bad encoding", `{"name":"x","signature":{"scheme":"hmac","header":"X-Sig","encoding":"base32"},"eventId":{"path":"id"},"eventType":{"path":"t"}}`,
			`providers[0].signature.encoding: "base32" must be hex or base64`},
		{"hmac without event id", `{"name":"x","signature":{"scheme":"hmac","header":"X-Sig"},"eventType":{"path":"t"}}`,
			"providers[0].eventId: needs a header or a path"},
		{"prefix on stripe", `{"name":"x","signature":{"scheme":"stripe","prefix":"v1="}}`,
			"providers[0].signature: header, encoding and prefix apply to the hmac scheme only"},
		{"field with header and path", `{"name":"x","signature":{"scheme":"stripe"},"eventType":{"header":"X-T","path":"type"}}`,
			"providers[0].eventType: takes a header or a path, not both"},
		{"body limit too large", `{"name":"x","signature":{"scheme":"stripe"},"maxBodyBytes":10485760}`,
			"providers[0].maxBodyBytes: 10485760 is outside 1..6291456"},
		{"empty redact path segment", `{"name":"x","signature":{"scheme":"stripe"},"redactPaths":["data..email"]}`,
			`providers[0].redactPaths[0]: segment 2 of path "data..email" is empty`},
		{"partner without entity type", `{"name":"x","signature":{"scheme":"stripe"},"partner":{"partnerId":"p","partnerName":"P","entityIdPath":"id"}}`,
			"providers[0].partner: needs exactly one of entityTypePath or entityType"},
		{"workflow without steps", stripe + `,{"name":"gh","signature":{"scheme":"github"}},{"name":"y","signature":{"scheme":"github"},"routes":[{"match":"push","workflow":{"name":"CI","steps":[],"priority":"low"}}]}`,
			"providers[2].routes[0].workflow.steps: workflow needs at least one step"},
		{"unknown step", `{"name":"x","signature":{"scheme":"stripe"},"routes":[{"match":"a","workflow":{"name":"W","steps":["validate","` + eventstest.Unlisted + `"],"priority":"low"}}]}`,
			`providers[0].routes[0].workflow.steps[1]: "` + eventstest.Unlisted + `" is not a known step (` + strings.Join(events.Steps, ", ") + `)`},
		{"missing priority", `{"name":"x","signature":{"scheme":"stripe"},"routes":[{"match":"a","workflow":{"name":"W","steps":["store"]}}]}`,
			`providers[0].routes[0].workflow.priority: "" must be low, medium or high`},
		{"unknown task type", `{"name":"x","signature":{"scheme":"stripe"},"routes":[{"match":"a","task":{"type":"` + eventstest.Unlisted + `"}}]}`,
			`providers[0].routes[0].task.type: "` + eventstest.Unlisted + `" must be ` + sentence(events.TaskTypeNames())},
		{"task data without a path", `{"name":"x","signature":{"scheme":"stripe"},"routes":[{"match":"a","task":{"type":"data_export","data":{"customerId":""}}}]}`,
			"providers[0].routes[0].task.data.customerId: needs a payload path"},
		{"negative retries", `{"name":"x","signature":{"scheme":"stripe"},"routes":[{"match":"a","task":{"type":"data_export","maxRetries":-1}}]}`,
			"providers[0].routes[0].task.maxRetries: -1 must not be negative"},
		{"route with two actions", `{"name":"x","signature":{"scheme":"stripe"},"routes":[{"match":"a","skip":true,"task":{"type":"data_export"}}]}`,
			"providers[0].routes[0]: needs exactly one of workflow, task or skip"},
		{"route without action", `{"name":"x","signature":{"scheme":"stripe"},"routes":[{"match":"a"}]}`,
			"providers[0].routes[0]: needs exactly one of workflow, task or skip"},
		{"wildcard inside a pattern", `{"name":"x","signature":{"scheme":"stripe"},"routes":[{"match":"invoice.*.paid","skip":true}]}`,
			`providers[0].routes[0].match: "invoice.*.paid" may only end in '*'`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "providers.json")
			require.NoError(t, os.WriteFile(path, []byte(`{"providers":[`+tt.providers+`]}`), 0o600))

			_, err := provider.LoadProviders(path)

			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
			var cerr *provider.ConfigError
			assert.ErrorAs(t, err, &cerr)
		})
	}
}

func TestProviderConfigReportsEveryProblemAtOnce(t *testing.T) {
	_, err := provider.NewRegistry(provider.Config{Providers: []provider.Provider{
		{Name: "a", Signature: provider.Signature{Scheme: "nope"}},
		{Name: "b", Signature: provider.Signature{Scheme: provider.SchemeGitHub}, Routes: []provider.Route{{Match: "push"}}},
	}})

	require.Error(t, err)
	assert.Contains(t, err.Error(), "providers[0].signature.scheme")
	assert.Contains(t, err.Error(), "providers[1].routes[0]: needs exactly one of workflow, task or skip")
}

func TestRegistryOwnsItsProviders(t *testing.T) {
	task := &provider.TaskTemplate{Type: events.TaskDataExport}
	cfg := provider.Config{Providers: []provider.Provider{{
		Name:      "stripe",
		Signature: provider.Signature{Scheme: provider.SchemeStripe},
		Routes:    []provider.Route{{Match: "charge.*", Task: task}},
	}}}

	reg, err := provider.NewRegistry(cfg)
	require.NoError(t, err)
	cfg.Providers[0].Routes[0].Match = "*"

	assert.Equal(t, 0, task.MaxRetries, "the caller's template is not defaulted in place")
	p, _ := reg.Provider("stripe")
	assert.Equal(t, "charge.*", p.Routes[0].Match)
	assert.Equal(t, provider.DefaultTaskMaxRetries, p.Routes[0].Task.MaxRetries)
}
