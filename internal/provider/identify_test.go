package provider_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/internal/provider"
)

func TestIdentifyNamesWhatIsMissing(t *testing.T) {
	tests := []struct {
		provider string
		header   http.Header
		body     string
		want     string
	}{
		{"stripe", nil, `{"type":"invoice.paid"}`, `webhook: stripe: provider_event_id: body field "id" is missing`},
		{"stripe", nil, `{"id":"evt_1"}`, `webhook: stripe: event_type: body field "type" is missing`},
		{"stripe", nil, `{"id":"  ","type":"invoice.paid"}`, `webhook: stripe: provider_event_id: body field "id" is empty`},
		{"stripe", nil, `{"id":{"v":1},"type":"invoice.paid"}`, `body field "id" is an object, want a string or number`},
		{"stripe", nil, `{"id":"evt_1","type":null}`, `body field "type" is null, want a string or number`},
		{"stripe", nil, `id=evt_1&type=invoice.paid`, `body field "id" cannot be read: the body is not JSON`},
		{"stripe", nil, `{"id":"evt_1","type":"` + strings.Repeat("x", 101) + `"}`, `body field "type" is 101 characters, longer than 100`},
		{"github", http.Header{"X-Github-Event": {"push"}}, `{}`, `webhook: github: provider_event_id: header "X-GitHub-Delivery" is missing`},
		{"github", http.Header{"X-Github-Delivery": {"d-1"}}, `{}`, `webhook: github: event_type: header "X-GitHub-Event" is missing`},
		{"standard", http.Header{"Webhook-Id": {"msg_1"}}, `{"data":{}}`, `webhook: standard: event_type: body field "type" is missing`},
		{"acme", nil, `{"eventType":"OR_MGMT"}`, `webhook: acme: provider_event_id: body field "eventId" is missing`},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			_, _, err := defaultProvider(t, tt.provider).Identify(tt.header, []byte(tt.body))

			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
			assert.ErrorIs(t, err, provider.ErrInvalidPayload)
			var ferr *provider.FieldError
			assert.ErrorAs(t, err, &ferr)
		})
	}
}

func TestIdentifyKeepsANumericIDsSpelling(t *testing.T) {
	p := configured(t, provider.Provider{
		Name:      "legacy",
		Signature: provider.Signature{Scheme: provider.SchemeHMAC, Header: "X-Sig"},
		EventID:   provider.Field{Path: "event.seq"},
		EventType: provider.Field{Path: "event.kind"},
	})

	id, typ, err := p.Identify(nil, []byte(`{"event":{"seq":90071992547409931,"kind":"order.placed"}}`))

	require.NoError(t, err)
	assert.Equal(t, "90071992547409931", id)
	assert.Equal(t, "order.placed", typ)
}
