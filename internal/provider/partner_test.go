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

// initech is a partner whose partnerId (seed 000's example) is not its
// provider name, and whose deliveries carry a send time.
func initech(t *testing.T) *provider.Registry {
	t.Helper()
	reg, err := provider.NewRegistry(provider.Config{Providers: []provider.Provider{
		{Name: "stripe", Signature: provider.Signature{Scheme: provider.SchemeStripe}},
		{Name: "initech", Signature: provider.Signature{Scheme: provider.SchemeHMAC, Header: "X-Initech-Signature"},
			EventID: provider.Field{Path: "meta.id"}, EventType: provider.Field{Path: "event"},
			Partner: &provider.Partner{PartnerID: "6231cfc8800d284c981b3146", PartnerName: "Initech", EntityIDPath: "order.id",
				EntityType: "Order", DeliveryFields: []string{"meta.sentAt", `x\.trace`}}},
	}})
	require.NoError(t, err)
	return reg
}

func TestAPartnersIDIsItsPartnerIDAndNeverItsProviderName(t *testing.T) {
	reg := initech(t)
	p, _ := reg.Provider("initech")
	s, _ := reg.Provider("stripe")
	assert.Equal(t, "6231cfc8800d284c981b3146", p.PartnerID(), "a partner's events carry its configured partnerId")
	assert.Equal(t, "stripe", s.PartnerID(), "another provider's carry its name")

	tests := []struct {
		id      string
		wantErr string
	}{
		{"6231cfc8800d284c981b3146", ""},
		{"stripe", ""},
		{"globex", ""},
		{"initech", `"initech" is the provider name of partner "Initech": use its partnerId "6231cfc8800d284c981b3146"`},
	}
	for _, tc := range tests {
		err := reg.CheckPartnerID(tc.id)
		if tc.wantErr == "" {
			assert.NoError(t, err, tc.id)
		} else {
			assert.EqualError(t, err, tc.wantErr, tc.id)
		}
	}

	_, err := provider.NewRegistry(provider.Config{Providers: []provider.Provider{
		{Name: "stripe", Signature: provider.Signature{Scheme: provider.SchemeStripe}},
		{Name: "acme", Signature: provider.Signature{Scheme: provider.SchemeHMAC, Header: "X-Acme-Signature"},
			EventID: provider.Field{Path: "id"}, EventType: provider.Field{Path: "type"},
			Partner: &provider.Partner{PartnerID: "stripe", PartnerName: "Acme", EntityIDPath: "id", EntityType: "Order"}},
	}})
	assert.ErrorContains(t, err, `providers[1].partner.partnerId: "stripe" is the name of providers[0]`)
}

func TestAResendFingerprintsAsItsEntityAndANewStateDoesNot(t *testing.T) {
	p, _ := initech(t).Provider("initech")
	base := `{"meta":{"id":"evt-1","sentAt":"10:00"},"event":"OR_MGMT","x.trace":"t1","order":{"id":"o-1","orderStatusLatest":"OR_PLC","total":59.90}}`
	want, err := p.EntityFingerprint([]byte(base))
	require.NoError(t, err)
	tests := []struct {
		name string
		body string
		same bool
	}{
		{"a resend: new event id, send time and trace", `{"meta":{"id":"evt-2","sentAt":"10:05"},"event":"OR_MGMT","x.trace":"t2","order":{"id":"o-1","orderStatusLatest":"OR_PLC","total":59.90}}`, true},
		{"the same in another key order and spacing", `{ "order": {"total":59.90, "orderStatusLatest":"OR_PLC","id":"o-1"}, "event":"OR_MGMT", "meta":{"sentAt":"x","id":"y"}}`, true},
		{"a new orderStatusLatest", `{"meta":{"id":"evt-3","sentAt":"11:00"},"event":"OR_MGMT","order":{"id":"o-1","orderStatusLatest":"OR_SHP","total":59.90}}`, false},
		{"another total", `{"meta":{"id":"evt-4"},"event":"OR_MGMT","order":{"id":"o-1","orderStatusLatest":"OR_PLC","total":59.9}}`, false},
	}
	for _, tc := range tests {
		got, err := p.EntityFingerprint([]byte(tc.body))
		require.NoError(t, err, tc.name)
		assert.Equal(t, tc.same, got == want, tc.name)
	}
	_, err = p.EntityFingerprint([]byte(`{"a":`))
	assert.ErrorIs(t, err, provider.ErrInvalidPayload)
}
