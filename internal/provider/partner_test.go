package provider_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/internal/provider"
)

func TestPartnerDeliveryYieldsSeed000EntityMetadata(t *testing.T) {
	md, ok, err := defaultProvider(t, "acme").PartnerMetadata(readFixture(t, "acme-order.json"))

	require.NoError(t, err)
	assert.True(t, ok)
	assert.Equal(t, provider.PartnerMetadata{PartnerID: "acme", PartnerName: "Acme Corp", EntityID: "order-12345", EntityType: "Order"}, md)
}

func TestNonPartnerHasNoPartnerMetadata(t *testing.T) {
	_, ok, err := defaultProvider(t, "stripe").PartnerMetadata(readFixture(t, "stripe-invoice-finalized.json"))

	require.NoError(t, err)
	assert.False(t, ok)
}

func TestPartnerEntityFromPaths(t *testing.T) {
	p := configured(t, provider.Provider{
		Name:      "initech",
		Signature: provider.Signature{Scheme: provider.SchemeHMAC, Header: "X-Initech-Signature"},
		EventID:   provider.Field{Path: "id"},
		EventType: provider.Field{Path: "event"},
		Partner:   &provider.Partner{PartnerID: "6231cfc8800d284c981b3146", PartnerName: "Initech", EntityIDPath: "entity.ref", EntityTypePath: "entity.kind"},
	})

	tests := []struct {
		name    string
		body    string
		want    provider.PartnerMetadata
		wantErr string
	}{
		{"string id and type", `{"entity":{"ref":"sub-9","kind":"Sub"}}`,
			provider.PartnerMetadata{PartnerID: "6231cfc8800d284c981b3146", PartnerName: "Initech", EntityID: "sub-9", EntityType: "Sub"}, ""},
		{"numeric id", `{"entity":{"ref":59734,"kind":"Order"}}`,
			provider.PartnerMetadata{PartnerID: "6231cfc8800d284c981b3146", PartnerName: "Initech", EntityID: "59734", EntityType: "Order"}, ""},
		{"missing id", `{"entity":{"kind":"Prom"}}`, provider.PartnerMetadata{},
			`webhook: initech: entity_id: body field "entity.ref" is missing`},
		{"missing type", `{"entity":{"ref":"p-1"}}`, provider.PartnerMetadata{},
			`webhook: initech: entity_type: body field "entity.kind" is missing`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			md, ok, err := p.PartnerMetadata([]byte(tt.body))
			assert.True(t, ok)
			if tt.wantErr != "" {
				require.EqualError(t, err, tt.wantErr)
				assert.ErrorIs(t, err, provider.ErrInvalidPayload)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, md)
		})
	}
}
