package provider_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/internal/provider"
)

func TestSignSendsWhatARealSenderSends(t *testing.T) {
	tests := []struct {
		provider string
		secret   string
		opts     provider.SignOptions
		want     http.Header // Content-Type and the non-signature headers; signatures are checked by Verify
		sigs     []string
	}{
		{"stripe", "whsec_s", provider.SignOptions{ID: "ignored", EventType: "ignored"},
			http.Header{"Content-Type": {"application/json"}}, []string{"Stripe-Signature"}},
		{"github", "gh", provider.SignOptions{ID: "72d3162e-cc78-11e3-81ab-4c9367dc0958", EventType: "push"},
			http.Header{"Content-Type": {"application/json"}, "X-Github-Delivery": {"72d3162e-cc78-11e3-81ab-4c9367dc0958"}, "X-Github-Event": {"push"}},
			[]string{"X-Hub-Signature-256"}},
		{"standard", whsec("k"), provider.SignOptions{ID: "msg_1"},
			http.Header{"Content-Type": {"application/json"}, "Webhook-Id": {"msg_1"}, "Webhook-Timestamp": {"1736899800"}},
			[]string{"Webhook-Signature"}},
		{"acme", "acme", provider.SignOptions{},
			http.Header{"Content-Type": {"application/json"}}, []string{"X-Acme-Signature"}},
	}
	for _, tt := range tests {
		t.Run(tt.provider, func(t *testing.T) {
			p := defaultProvider(t, tt.provider)
			body := []byte(`{"id":"evt_1","type":"invoice.paid","eventId":"e1","eventType":"OR_MGMT"}`)
			tt.opts.Now = now

			h, err := p.Sign(body, tt.secret, tt.opts)

			require.NoError(t, err)
			for _, name := range tt.sigs {
				assert.NotEmpty(t, h.Get(name), name)
				h.Del(name)
			}
			assert.Equal(t, tt.want, h)
		})
	}
}

// TestSignedFixturesVerifyIdentifyAndRoute signs each default provider's
// fixture as its sender would, then verifies it, reads its event id and
// type, and routes it.
func TestSignedFixturesVerifyIdentifyAndRoute(t *testing.T) {
	tests := []struct {
		provider, fixture string
		opts              provider.SignOptions
		wantID, wantType  string
		route             string
	}{
		{"stripe", "stripe-invoice-finalized.json", provider.SignOptions{}, "evt_1QdXyZ2eZvKYlo2C8hTn4bLm", "invoice.finalized", "invoice.*"},
		{"stripe", "stripe-customer-created.json", provider.SignOptions{}, "evt_1QeR4sLkdIwHu7ixOq2bT9Zc", "customer.created", "customer.created"},
		{"github", "github-push.json", provider.SignOptions{ID: "72d3162e-cc78-11e3-81ab-4c9367dc0958", EventType: "push"},
			"72d3162e-cc78-11e3-81ab-4c9367dc0958", "push", "push"},
		{"standard", "standard-event.json", provider.SignOptions{ID: "msg_2KWPBgLlAfxdpx2AI54pPJ85f4W"},
			"msg_2KWPBgLlAfxdpx2AI54pPJ85f4W", "contact.created", ""},
		{"acme", "acme-order.json", provider.SignOptions{}, "acme-evt-20250115-000042", "OR_MGMT", "OR_*"},
	}
	for _, tt := range tests {
		t.Run(tt.fixture, func(t *testing.T) {
			p := defaultProvider(t, tt.provider)
			body := readFixture(t, tt.fixture)
			secret := whsec(tt.provider + "-secret")
			tt.opts.Now = now
			h, err := p.Sign(body, secret, tt.opts)
			require.NoError(t, err)

			require.NoError(t, p.Verify(h, body, []string{secret}, now))
			id, eventType, err := p.Identify(h, body)
			require.NoError(t, err)
			assert.Equal(t, tt.wantID, id)
			assert.Equal(t, tt.wantType, eventType)
			r, ok := p.Route(eventType)
			assert.Equal(t, tt.route != "", ok)
			assert.Equal(t, tt.route, r.Match)
		})
	}
}

func TestSignRefusesWhatCannotBeSigned(t *testing.T) {
	tests := []struct {
		provider, secret string
		opts             provider.SignOptions
		want             string
	}{
		{"stripe", " ", provider.SignOptions{}, "webhook: sign: empty secret"},
		{"standard", whsec("k"), provider.SignOptions{}, "SignOptions.ID is required"},
		{"standard", "whsec_%%%", provider.SignOptions{ID: "msg_1"}, "Standard Webhooks secret is not whsec_<base64>"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			_, err := defaultProvider(t, tt.provider).Sign([]byte(`{}`), tt.secret, tt.opts)

			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}
