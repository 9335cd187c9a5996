package loadprobe

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/streamops/streamops/internal/local"
	"github.com/streamops/streamops/internal/provider"
)

// StripeInvoices is the probe's default Kind: a Stripe invoice.finalized
// with a fresh id (local.SampleInvoiceFinalized), which the default
// providers.json routes to the 3-step Invoice Sync workflow.
func StripeInvoices(reg *provider.Registry, secret string) (Kind, error) {
	return kindOf(reg, "stripe", secret, local.SampleInvoiceFinalized)
}

// AcmePartner is the partner id of the default providers.json's acme
// provider: its orders' Partner Order Sync workflow delivers back to it,
// so a partners file must list an endpoint of this id.
const AcmePartner = "acme"

// AcmeOrders is a Kind of partner traffic: an acme OR_MGMT order of a
// fresh id with a customer's contact details (which the stack scrubs),
// routed to the 4-step Partner Order Sync workflow whose deliver step
// sends it to the partner AcmePartner through the outbox.
func AcmeOrders(reg *provider.Registry, secret string) (Kind, error) {
	return kindOf(reg, "acme", secret, AcmeOrder)
}

// AcmeOrder is an acme order event of a fresh id, occurred at now.
func AcmeOrder(now time.Time) []byte {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	id := hex.EncodeToString(b)
	return fmt.Appendf(nil, `{"eventId":"acme-evt-%s","eventType":"OR_MGMT","eventVersion":"v2","occurredAt":%d,`+
		`"order":{"id":"order-%s","orderId":59734,"orderStatusLatest":"OR_PLC","orderStatusLatestTimestamp":%d,`+
		`"customer":{"customerId":"acme-cust-7781","firstName":"Grace","lastName":"Hopper","email":"grace.hopper@example.com",`+
		`"phoneNumber":"+15555550777","shippingAddress":{"street":"1 Navy Yard Way","city":"Arlington","zipCode":"22202","country":"US"}},`+
		`"orderLineItems":[{"sku":"ACME-ANVIL-10","quantity":2,"unitPrice":49.95},{"sku":"ACME-ROCKET-SKATES","quantity":1,"unitPrice":129.90}],`+
		`"orderSummary":{"currency":"USD","subtotal":229.80,"tax":18.38,"total":248.18}}}`, id, now.Unix(), id, now.Unix())
}

func kindOf(reg *provider.Registry, name, secret string, body func(time.Time) []byte) (Kind, error) {
	p, ok := reg.Provider(name)
	if !ok {
		return Kind{}, fmt.Errorf("loadprobe: no provider %q is configured", name)
	}
	return Kind{Provider: p, Secret: secret, Body: body}, nil
}
