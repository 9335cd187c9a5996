package provider_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/events/eventstest"
	"github.com/streamops/streamops/internal/provider"
)

// schemeOptions are the options of the schemes that need some beyond
// their name; a scheme not listed is configured by its name alone.
var schemeOptions = map[string]provider.Provider{
	"hmac": {Signature: provider.Signature{Header: "X-Test-Signature"}, EventID: provider.Field{Path: "id"}, EventType: provider.Field{Path: "type"}},
}

// TestSignatureSchemesAreOneList runs every scheme of the table
// (provider.SchemeNames) through configuration, Sign, Verify and Identify:
// a scheme added to the table without its sign or verify, or without the
// defaults that let it be configured by name, fails here.
func TestSignatureSchemesAreOneList(t *testing.T) {
	secret := whsec("scheme-secret")
	body := []byte(`{"id":"evt_1","type":"invoice.paid"}`)
	for _, name := range provider.SchemeNames() {
		t.Run(name, func(t *testing.T) {
			assert.Regexp(t, `^[a-z][a-z0-9_]*$`, name, "lower snake case, so eventstest.Unlisted is never a scheme")
			cfg := schemeOptions[name]
			cfg.Name, cfg.Signature.Scheme = "p-"+name, provider.Scheme(name)
			p := configured(t, cfg)

			h, err := p.Sign(body, secret, provider.SignOptions{Now: now, ID: "evt_1", EventType: "invoice.paid"})
			require.NoError(t, err)
			require.NoError(t, p.Verify(h, body, []string{whsec("old"), secret}, now), "a delivery signed with the current secret verifies")
			assert.ErrorIs(t, p.Verify(h, body, []string{whsec("other")}, now), provider.ErrInvalidSignature, "another secret does not verify it")
			assert.ErrorIs(t, p.Verify(http.Header{}, body, []string{secret}, now), provider.ErrMissingSignature)

			doc, err := p.Document(h, body)
			require.NoError(t, err)
			id, eventType, err := p.Identify(h, doc)
			require.NoError(t, err, "the scheme's default event id and type fields are where its sender puts them")
			assert.Equal(t, "evt_1", id)
			assert.Equal(t, "invoice.paid", eventType)
		})
	}
}

// TestAnUnknownSchemeIsRefusedEverywhere: configuration names the schemes
// of the table, and a Provider built around validation verifies and signs
// nothing.
func TestAnUnknownSchemeIsRefusedEverywhere(t *testing.T) {
	_, err := provider.NewRegistry(provider.Config{Providers: []provider.Provider{{Name: "x", Signature: provider.Signature{Scheme: eventstest.Unlisted}}}})
	assert.ErrorContains(t, err, `providers[0].signature.scheme: "`+eventstest.Unlisted+`" must be `+sentence(provider.SchemeNames()))
	_, err = provider.NewRegistry(provider.Config{Providers: []provider.Provider{{Name: "x"}}})
	assert.ErrorContains(t, err, `providers[0].signature.scheme: is required (`+sentence(provider.SchemeNames())+`)`)

	p := &provider.Provider{Name: "x", Signature: provider.Signature{Scheme: eventstest.Unlisted}}
	err = p.Verify(http.Header{}, []byte(`{}`), []string{"s"}, now)
	assert.EqualError(t, err, `webhook: x: unknown signature scheme "`+eventstest.Unlisted+`"`)
	var serr *provider.SignatureError
	assert.False(t, errors.As(err, &serr), "a misconfigured provider is not the sender's fault")
	_, err = p.Sign([]byte(`{}`), "s", provider.SignOptions{})
	assert.EqualError(t, err, `webhook: sign: unknown signature scheme "`+eventstest.Unlisted+`"`)
}

// sentence lists items as the configuration errors do: "a, b or c".
func sentence(items []string) string {
	if n := len(items); n > 1 {
		return strings.Join(items[:n-1], ", ") + " or " + items[n-1]
	}
	return strings.Join(items, "")
}

func TestSentenceIsHowConfigurationErrorsListChoices(t *testing.T) {
	for _, tt := range []struct {
		items []string
		want  string
	}{
		{nil, ""},
		{[]string{"hex"}, "hex"},
		{[]string{"hex", "base64"}, "hex or base64"},
		{[]string{"stripe", "github", "standard", "hmac"}, "stripe, github, standard or hmac"},
	} {
		assert.Equal(t, tt.want, sentence(tt.items))
	}
}
