package handlers

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/internal/httpapi"
	"github.com/streamops/streamops/internal/outbox"
	"github.com/streamops/streamops/internal/provider"
)

func TestPartnerConfigsJoinThePartnersAndProvidersFiles(t *testing.T) {
	reg, err := provider.NewRegistry(provider.Config{Providers: []provider.Provider{
		{Name: "stripe", Signature: provider.Signature{Scheme: provider.SchemeStripe}},
		{Name: "acme", Signature: provider.Signature{Scheme: provider.SchemeHMAC, Header: "X-Acme-Signature"},
			EventID: provider.Field{Path: "eventId"}, EventType: provider.Field{Path: "eventType"},
			Partner: &provider.Partner{PartnerID: "acme", PartnerName: "Acme (providers file)", EntityIDPath: "order.id", EntityType: "Order"}},
		{Name: "globex-in", Signature: provider.Signature{Scheme: provider.SchemeStandard},
			Partner: &provider.Partner{PartnerID: "globex", PartnerName: "Globex", EntityIDPath: "id", EntityType: "Order"}},
	}})
	require.NoError(t, err)
	partners := map[string]outbox.Partner{
		"acme":    {ID: "acme", Name: "Acme Corp", URL: "https://acme.example/hooks"},
		"initech": {ID: "initech", Name: "Initech", URL: "https://initech.example/in"},
	}
	got, err := partnerConfigs(partners, reg)
	require.NoError(t, err)
	assert.Equal(t, map[string]httpapi.PartnerConfig{
		"acme": {ID: "acme", Name: "Acme Corp", URL: "https://acme.example/hooks",
			Webhooks: []httpapi.PartnerWebhook{{Provider: "acme", SignatureScheme: "hmac"}}},
		"globex": {ID: "globex", Name: "Globex",
			Webhooks: []httpapi.PartnerWebhook{{Provider: "globex-in", SignatureScheme: "standard"}}},
		"initech": {ID: "initech", Name: "Initech", URL: "https://initech.example/in"},
	}, got, "the partners file's name wins; stripe is no partner")
	none, err := partnerConfigs(nil, nil)
	require.NoError(t, err)
	assert.Empty(t, none)

	_, err = partnerConfigs(map[string]outbox.Partner{"globex-in": {ID: "globex-in", Name: "Globex", URL: "https://globex.example/in"}}, reg)
	require.EqualError(t, err, `partners file: id: "globex-in" is the provider name of partner "Globex": use its partnerId "globex"`,
		"an endpoint under the provider's name would own none of the partner's deliveries")
}
