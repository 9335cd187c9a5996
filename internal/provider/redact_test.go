package provider_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tidwall/gjson"

	"github.com/streamops/streamops/internal/provider"
)

func TestStripeCustomerCreatedIsStoredWithoutPII(t *testing.T) {
	p := defaultProvider(t, "stripe")

	out, err := p.Redact(readFixture(t, "stripe-customer-created.json"))

	require.NoError(t, err)
	assert.JSONEq(t, string(readFixture(t, "stripe-customer-created.redacted.json")), string(out))
	for _, pii := range []string{
		"jenny.rosen@example.com", "Jenny Rosen", "Jenny R. Rosen", "+15555550123", "+15555550199",
		"742 Evergreen Terrace", "Apt 3B", "49007", "Springfield", "1000 Mapleview Drive", "49008", "Shelbyville",
	} {
		assert.NotContains(t, string(out), pii)
	}
	// Non-PII survives unchanged. country is not PII on its own, but it goes
	// with the address object it sits in.
	for path, want := range map[string]string{
		"id":                        "evt_1QeR4sLkdIwHu7ixOq2bT9Zc",
		"type":                      "customer.created",
		"created":                   "1736899200",
		"data.object.id":            "cus_RXy7kQm2Lp9VbN",
		"data.object.object":        "customer",
		"data.object.currency":      "usd",
		"data.object.balance":       "0",
		"data.object.metadata.plan": "pro-annual",
		"data.object.invoice_settings.default_payment_method": "pm_1QeR4qLkdIwHu7ixV3cW8yTn",
		"data.object.address":  provider.Redacted,
		"data.object.shipping": provider.Redacted,
		"data.object.email":    provider.Redacted,
		"data.object.name":     provider.Redacted,
		"data.object.phone":    provider.Redacted,
	} {
		assert.Equal(t, want, gjson.GetBytes(out, path).String(), path)
	}
}

func TestFixturesAreStoredWithoutPII(t *testing.T) {
	tests := []struct {
		provider string
		fixture  string
		pii      []string
		kept     map[string]string // gjson path → raw JSON that must survive
	}{
		{"stripe", "stripe-invoice-finalized.json",
			[]string{"jenny.rosen@example.com", "Jenny Rosen", "+15555550123", "742 Evergreen Terrace", "49007", "DE123456789"},
			map[string]string{"data.object.amount_due": "129900", "data.object.customer": `"cus_RXy7kQm2Lp9VbN"`, "data.object.number": `"7C1A2B3D-0001"`}},
		{"github", "github-push.json",
			[]string{"mona.lisa@example.com", "Mona Lisa Octocat", "monalisa"},
			map[string]string{"ref": `"refs/heads/main"`, "repository.id": "1296269", "head_commit.id": `"0d1a26e67d8f5eaf1f6ba5c57fc3c7d91ac0fd1c"`}},
		{"standard", "standard-event.json",
			[]string{"ada.lovelace@example.com", "Ada", "Lovelace"},
			map[string]string{"type": `"contact.created"`, "data.id": `"1f81eb52-5198-4599-803e-771906343485"`}},
		{"acme", "acme-order.json",
			[]string{"Grace", "Hopper", "grace.hopper@example.com", "+15555550777", "1 Navy Yard Way", "22202"},
			map[string]string{"order.id": `"order-12345"`, "order.orderLineItems.1.unitPrice": "129.90", "order.orderSummary.subtotal": "229.80",
				"order.customer.customerId": `"acme-cust-7781"`}},
	}
	for _, tt := range tests {
		t.Run(tt.fixture, func(t *testing.T) {
			out, err := defaultProvider(t, tt.provider).Redact(readFixture(t, tt.fixture))

			require.NoError(t, err)
			for _, pii := range tt.pii {
				assert.NotContains(t, string(out), pii)
			}
			for path, raw := range tt.kept {
				assert.Equal(t, raw, gjson.GetBytes(out, path).Raw, path)
			}
		})
	}
}

func TestRedact(t *testing.T) {
	tests := []struct {
		name     string
		body     string
		paths    []string
		denylist []string
		want     string
	}{
		{"denied key at any depth", `{"a":{"b":[{"email":"x@y.z","id":1}]}}`, nil, []string{"email"},
			`{"a":{"b":[{"email":"[REDACTED]","id":1}]}}`},
		{"object under a denied key goes whole", `{"shipping":{"name":"N","address":{"country":"US"}}}`, nil, []string{"shipping"},
			`{"shipping":"[REDACTED]"}`},
		{"array under a denied key goes whole", `{"tax_ids":[{"value":"DE1"}]}`, nil, []string{"tax_ids"},
			`{"tax_ids":"[REDACTED]"}`},
		{"keys are normalised: camelCase, kebab, spaces, case", `{"firstName":"A","First-Name":"B","first name":"C","FIRST_NAME":"D","firstname_x":"E"}`,
			nil, []string{"first_name"},
			`{"firstName":"[REDACTED]","First-Name":"[REDACTED]","first name":"[REDACTED]","FIRST_NAME":"[REDACTED]","firstname_x":"E"}`},
		{"null stays null", `{"email":null,"phone":""}`, nil, []string{"email", "phone"},
			`{"email":null,"phone":"[REDACTED]"}`},
		{"structural keys stay", `{"id":"cus_1","type":"customer.created","object":"customer"}`, nil, provider.DefaultDenylist,
			`{"id":"cus_1","type":"customer.created","object":"customer"}`},
		{"path", `{"data":{"object":{"customer_note":"call Bob","id":"x"}}}`, []string{"data.object.customer_note"}, nil,
			`{"data":{"object":{"customer_note":"[REDACTED]","id":"x"}}}`},
		{"path through every array element with #", `{"items":[{"note":"a","n":1},{"note":"b","n":2}]}`, []string{"items.#.note"}, nil,
			`{"items":[{"note":"[REDACTED]","n":1},{"note":"[REDACTED]","n":2}]}`},
		{"path through every array element with *", `{"items":[{"note":"a"},{"n":2}]}`, []string{"items.*.note"}, nil,
			`{"items":[{"note":"[REDACTED]"},{"n":2}]}`},
		{"* matches every object member", `{"metadata":{"crm_contact":"bob@x.io","plan":"pro"},"id":"1"}`, []string{"metadata.*"}, nil,
			`{"metadata":{"crm_contact":"[REDACTED]","plan":"[REDACTED]"},"id":"1"}`},
		{"array index", `{"items":["a","b"]}`, []string{"items.1"}, nil, `{"items":["a","[REDACTED]"]}`},
		{"escaped dot in a key", `{"a.b":{"c":"secret"},"a":{"b":{"c":"kept"}}}`, []string{`a\.b.c`}, nil,
			`{"a.b":{"c":"[REDACTED]"},"a":{"b":{"c":"kept"}}}`},
		{"absent path scrubs nothing", `{"a":1}`, []string{"b.c", "a.b"}, nil, `{"a":1}`},
		{"top-level array", `[{"email":"a@b.c"}]`, nil, []string{"email"}, `[{"email":"[REDACTED]"}]`},
		{"values under any key, free text included", `{"note":"call +1 415 555 0100 or mail jane.doe@example.com","id":"cus_123"}`, nil, nil,
			`{"note":"call [redacted:phone] or mail [redacted:email]","id":"cus_123"}`},
		{"keys, paths and values in one pass", `{"email":"x","metadata":{"crm":"bob"},"memo":"IBAN DE89 3704 0044 0532 0130 00"}`,
			[]string{"metadata.crm"}, []string{"email"},
			`{"email":"[REDACTED]","metadata":{"crm":"[REDACTED]"},"memo":"IBAN [redacted:iban]"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := provider.Redact([]byte(tt.body), tt.paths, tt.denylist)

			require.NoError(t, err)
			assert.JSONEq(t, tt.want, string(out))
		})
	}
}

func TestRedactKeepsNumbersAndKeyOrderExactly(t *testing.T) {
	out, err := provider.Redact([]byte(`{"price":129.90,"big":12345678901234567890,"exp":1e3,"neg":-0.0,"email":"a@b.co"}`), nil, provider.DefaultDenylist)

	require.NoError(t, err)
	assert.Equal(t, `{"price":129.90,"big":12345678901234567890,"exp":1e3,"neg":-0.0,"email":"[REDACTED]"}`, string(out))
}

func TestRedactKeepsHTMLCharactersAsSent(t *testing.T) {
	out, err := provider.Redact([]byte(`{"url":"https://x.io/?a=1&b=<2>"}`), nil, nil)

	require.NoError(t, err)
	assert.Equal(t, `{"url":"https://x.io/?a=1&b=<2>"}`, string(out))
}

func TestRedactRejectsWhatIsNotJSON(t *testing.T) {
	tests := []struct {
		name string
		body string
	}{
		{"form encoded", `id=evt_1&email=a@b.c`},
		{"empty", ``},
		{"truncated", `{"email":"a@b.c"`},
		{"two documents", `{"a":1}{"b":2}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := provider.Redact([]byte(tt.body), nil, provider.DefaultDenylist)

			assert.Nil(t, out)
			assert.ErrorIs(t, err, provider.ErrInvalidPayload)
			assert.NotContains(t, err.Error(), "a@b.c")
		})
	}
}

func TestRedactRejectsABadPath(t *testing.T) {
	_, err := provider.Redact([]byte(`{}`), []string{"data."}, nil)

	assert.EqualError(t, err, `webhook: redact path "data.": segment 2 of path "data." is empty`)
}
