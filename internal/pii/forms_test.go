package pii_test

import (
	"encoding/base64"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/internal/pii"
)

// b64 and b64url encode s in the standard (padded) and url (unpadded)
// alphabets.
func b64(s string) string    { return base64.StdEncoding.EncodeToString([]byte(s)) }
func b64url(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }

// formCases are the forms of issue 34 the scrubber once missed, each with
// documents that must be caught (the categories of their findings, in
// document order) and near misses that must not (want empty).
var formCases = []struct {
	form string
	doc  string
	want []pii.Category
}{
	// Card numbers sent as JSON numbers: 13–19 digits, a scheme's IIN, Luhn.
	{"card number", `{"pan":4111111111111111}`, cats(pii.CategoryCard)},
	{"card number", `{"x":[5555555555554444,378282246310005]}`, cats(pii.CategoryCard, pii.CategoryCard)},
	{"card number", `{"pan":6011111111111117}`, cats(pii.CategoryCard)},
	{"card number", `{"pan":4111111111111112}`, nil},   // Luhn-invalid
	{"card number", `{"n":1655292809853000}`, nil},     // unix micros
	{"card number", `{"n":9111111111111111}`, nil},     // no scheme starts 9
	{"card number", `{"n":4111111111111111.0}`, nil},   // not an integer
	{"card number", `{"n":-4111111111111111}`, nil},    // negative: an amount
	{"card number", `{"order":7000000000000000}`, nil}, // an order id no scheme has

	// Phone numbers sent as JSON numbers: international without '+'.
	{"phone number", `{"to":4915112345679}`, cats(pii.CategoryPhone)},
	{"phone number", `{"to":447911123456}`, cats(pii.CategoryPhone)},
	{"phone number", `{"to":14155550123}`, cats(pii.CategoryPhone)},
	{"phone number", `{"created":1736899200,"ts_ms":1655292809853}`, nil}, // unix seconds, millis
	{"phone number", `{"at":20240615123045}`, nil},                        // a compact timestamp
	{"phone number", `{"amount":129900,"total":1299000000}`, nil},         // amounts
	{"phone number", `{"order":100000123456}`, nil},                       // an order id
	{"phone number", `{"id":4155550123}`, nil},                            // ten digits: never as a number

	// National numbers without separators, in text.
	{"national phone", `{"note":"call 07911123456"}`, cats(pii.CategoryPhone)},
	{"national phone", `{"note":"call 4155550123 today"}`, cats(pii.CategoryPhone)},
	{"national phone", `{"note":"06 or 0612345678?"}`, cats(pii.CategoryPhone)},
	{"national phone", `{"note":"Tel 0049 30 12345678 or 00493012345678"}`, cats(pii.CategoryPhone, pii.CategoryPhone)},
	{"national phone", `{"note":"4915112345679"}`, cats(pii.CategoryPhone)},
	{"national phone", `{"note":"sent 1736899200 (1655292809853 ms)"}`, nil},
	{"national phone", `{"order_id":"4155550123","user_ids":"2125550123"}`, nil}, // an id under an id key
	{"national phone", `{"note":"order 100000123456, amount 1299000000"}`, nil},
	{"national phone", `{"note":"0000012345 and 20240615"}`, nil},
	{"national phone", `{"ref":"ord_4155550123","path":"/v1/4155550123"}`, nil}, // glued

	// Percent-encoded values.
	{"url-encoded", `{"q":"jane%40example.com"}`, cats(pii.CategoryEmail)},
	{"url-encoded", `{"q":"to=%2B4915112345678&x=1"}`, cats(pii.CategoryPhone)},
	{"url-encoded", `{"u":"https://x.io/?mail=jane%40example.com&iban=DE89%203704%200044%200532%200130%2000"}`,
		cats(pii.CategoryEmail, pii.CategoryIBAN)},
	{"url-encoded", `{"u":"https://x.io/a%20b?page=2%2C3&id=7C1A2B3D-0001"}`, nil},
	{"url-encoded", `{"u":"100%25 of 50%"}`, nil},

	// Base64 values: the whole string, of the category of what is inside.
	{"base64", `{"state":"` + b64("jane@example.com") + `"}`, cats(pii.CategoryEmail)},
	{"base64", `{"state":"` + b64url("call +1 415 555 0100 now") + `"}`, cats(pii.CategoryPhone)},
	{"base64", `{"state":"` + b64url(`{"surname":"Doe","n":1}`) + `"}`, cats(pii.CategoryName)},
	{"base64", `{"state":"` + b64(`{"card":"4242 4242 4242 4242"}`) + `"}`, cats(pii.CategoryCard)},
	{"base64", `{"state":"` + b64(b64("jane@example.com")) + `"}`, cats(pii.CategoryEmail)},
	{"base64", `{"u":"https://x.io/cb?state=` + b64url("jane@example.com") + `&x=1"}`, cats(pii.CategoryEmail)},
	{"base64", `{"state":"` + b64("order 12345 shipped") + `"}`, nil}, // text without PII
	{"base64", `{"id":"evt_1QdXyZ2eZvKYlo2C8hTn4bLm","sub":"sub_1PxQ8r2eZvKYlo2CbN6tL4Wd"}`, nil},
	{"base64", `{"uuid":"1f81eb52-5198-4599-803e-771906343485","sha":"9fceb02d0ae598e95dc970b74767f19372d61af8"}`, nil},
	{"base64", `{"word":"Springfield","v":"ZGVhZGJlZWY="}`, nil}, // a word; "deadbeef"

	// Keys not on the denylist, named by their ending.
	{"key ending", `{"surname":"Doe","customer_name":"Jane Doe","contactName":"J"}`, cats(pii.CategoryName, pii.CategoryName, pii.CategoryName)},
	{"key ending", `{"street_address":"1 Main St","homeAddress":{"c":"X"},"addressLine1":"y"}`,
		cats(pii.CategoryAddress, pii.CategoryAddress, pii.CategoryAddress)},
	{"key ending", `{"birthday":"1990-01-01","customer_dob":"1990-01-01","date_of_birth":{"y":1990}}`,
		cats(pii.CategoryBirthdate, pii.CategoryBirthdate, pii.CategoryBirthdate)},
	{"key ending", `{"remote_addr":"10.0.0.1","clientIp":"x","X-Forwarded-For":"a, b","ip_address":"y","last_login_ip":"z"}`,
		cats(pii.CategoryIP, pii.CategoryIP, pii.CategoryIP, pii.CategoryIP, pii.CategoryIP)},
	{"key ending", `{"contact_email":"x","work_phone":"y","emailAddress":"z"}`, cats(pii.CategoryEmail, pii.CategoryPhone, pii.CategoryEmail)},
	{"key ending", `{"tip":5,"shipping_rate":"x","description":"d","recipient":"r","address_id":"a","ship":"s","membership":"m"}`, nil},
	{"key ending", `{"email_verified":true,"phone_verified_at":1736899200,"file_name":"a.pdf","product_name":"Pro","zipper":"z"}`, nil},
	{"key ending", `{"relationship":"r","ownership":"o","vip":true,"chip":"c","skip":1,"clip":"c","strip":"s","trip":"t"}`, nil},

	// IP addresses by value, inside text.
	{"ip", `{"log":"login from 203.0.113.7"}`, cats(pii.CategoryIP)},
	{"ip", `{"log":"from [2001:db8::8a2e:370:7334]:443"}`, cats(pii.CategoryIP)},
	{"ip", `{"peer":"198.51.100.23:51234"}`, cats(pii.CategoryIP)},
	{"ip", `{"version":"1.2.3.4","app_version":"10.2.3.4","note":"v1.2.3.4 1.2.3 1.2.3.4.5"}`, nil},
	{"ip", `{"date":"15.06.2024","at":"2024-06-15T12:34:56Z","mask":"255.255.255.0","db":"10.0.0.1:27017"}`, nil},
	{"ip", `{"loop":"127.0.0.1 ::1 0.0.0.0","lan":"192.168.1.20 172.16.0.1 fd00::1 fe80::1"}`, nil},
}

func cats(c ...pii.Category) []pii.Category { return c }

func TestTheFormsTable(t *testing.T) {
	seen := map[string]bool{}
	for _, tc := range formCases {
		t.Run(tc.form+"/"+tc.doc, func(t *testing.T) {
			fs, err := pii.Default.Findings([]byte(tc.doc))
			require.NoError(t, err)

			var got []pii.Category
			for _, f := range fs {
				got = append(got, f.Category)
			}
			assert.Equal(t, tc.want, got, "%+v", fs)
			if len(tc.want) > 0 {
				seen[tc.form] = true
				out, err := pii.Scrub([]byte(tc.doc))
				require.NoError(t, err)
				assert.True(t, json.Valid(out))
				again, err := pii.Default.Findings(out)
				require.NoError(t, err)
				assert.Empty(t, again, "Scrub leaves nothing to find: %s", out)
			}
		})
	}
	for _, form := range []string{"card number", "phone number", "national phone", "url-encoded", "base64", "key ending", "ip"} {
		assert.True(t, seen[form], "form %q has no positive case", form)
	}
}

// Free text (log lines, answer bodies) is scrubbed of every by-value
// form the JSON walk finds inside strings, base64 tokens included.
func TestScrubTextCoversEveryByValueForm(t *testing.T) {
	tests := []struct{ in, want string }{
		{"POST /x?mail=jane%40example.com 200", "POST /x?mail=[redacted:email] 200"},
		{"to=%2B4915112345678", "to=[redacted:phone]"},
		{"call 07911123456 or 4155550123.", "call [redacted:phone] or [redacted:phone]."},
		{"remote 203.0.113.7:443 said no", "remote [redacted:ip]:443 said no"},
		{"Authorization: Basic " + b64("jane@example.com:hunter2"), "Authorization: Basic [redacted:email]"},
		{"state=" + b64url(`{"surname":"Doe"}`) + "&ok=1", "state=[redacted:name]&ok=1"},
		{"answer {\"card\":\"4242424242424242\"}", "answer {\"card\":\"[redacted:card]\"}"},
		{"evt_1QdXyZ2eZvKYlo2C8hTn4bLm took 1736899200 ms on 10.0.0.1", "evt_1QdXyZ2eZvKYlo2C8hTn4bLm took 1736899200 ms on 10.0.0.1"},
	}
	for _, tt := range tests {
		got, changed := pii.ScrubText(tt.in)

		assert.Equal(t, tt.want, got, tt.in)
		assert.Equal(t, tt.in != tt.want, changed, tt.in)
	}
}

func TestFindingsSayWhatAndWhere(t *testing.T) {
	doc := `{"email":"jane@example.com","n":[" mail bob@example.org or +1 415 555 0100 "],` +
		`"addr":{"street":{"no":1}},"pan":4111111111111111,"k\u0040":"a\u0040b.co","jane@x.io":1,` +
		`"state":"` + b64("jane@example.com") + `"}`

	fs, err := pii.Default.Findings([]byte(doc))

	require.NoError(t, err)
	assert.Equal(t, []pii.Finding{
		{Category: pii.CategoryEmail, Value: `"jane@example.com"`, Whole: true, Key: "email"},
		{Category: pii.CategoryEmail, Value: "bob@example.org"},
		{Category: pii.CategoryPhone, Value: "+1 415 555 0100"},
		{Category: pii.CategoryAddress, Value: `{"no":1}`, Whole: true, Key: "street"},
		{Category: pii.CategoryCard, Value: "4111111111111111", Whole: true, Key: "pan"},
		{Category: pii.CategoryEmail, Value: "a@b.co", Key: "k@"},
		{Category: pii.CategoryEmail, Value: "jane@x.io", Key: "jane@x.io"},
		{Category: pii.CategoryEmail, Value: `"` + b64("jane@example.com") + `"`, Whole: true, Key: "state"},
	}, fs)
}

func TestReplacePutsWhatTheReplacerReturns(t *testing.T) {
	doc := "{ \"email\" : \"jane@example.com\",\n\"note\":\"mail bob@example.org, \\\"call\\\" +15555550123\",\"pan\": 4111111111111111 ,\"price\":129.90}"
	n := 0
	tokenise := func(f pii.Finding) (string, error) {
		n++
		return pii.Reference{Category: f.Category, Subject: subject, Sealed: "AbCdEfGhIjKlMnOp" + string(rune('a'+n))}.String(), nil
	}

	out, err := pii.Default.Replace([]byte(doc), tokenise)

	require.NoError(t, err)
	ref := func(c pii.Category, k int) string {
		return pii.Reference{Category: c, Subject: subject, Sealed: "AbCdEfGhIjKlMnOp" + string(rune('a'+k))}.String()
	}
	assert.Equal(t, "{ \"email\" : \""+ref(pii.CategoryEmail, 1)+"\",\n\"note\":\"mail "+ref(pii.CategoryEmail, 2)+
		", \\\"call\\\" "+ref(pii.CategoryPhone, 3)+"\",\"pan\": \""+ref(pii.CategoryCard, 4)+"\" ,\"price\":129.90}", string(out))
	again, err := pii.Default.Replace(out, tokenise)
	require.NoError(t, err)
	assert.Equal(t, string(out), string(again), "a tokenised document is tokenised already")
	assert.Equal(t, 4, n)
}

func TestReplaceStopsAtTheReplacersError(t *testing.T) {
	boom := assert.AnError
	calls := 0

	out, err := pii.Default.Replace([]byte(`{"a":"jane@example.com","b":"bob@example.org"}`), func(pii.Finding) (string, error) {
		calls++
		return "", boom
	})

	assert.Nil(t, out)
	assert.ErrorIs(t, err, boom)
	assert.Equal(t, 1, calls)
}

func TestReplaceReturnsACleanDocumentWithoutCopying(t *testing.T) {
	in := []byte(`{"id":"cus_123","created":1655292809853,"items":[{"price":"129.90"}],"email":"` + refEmail + `"}`)

	out, err := pii.Default.Replace(in, func(pii.Finding) (string, error) { return "x", nil })

	require.NoError(t, err)
	assert.Same(t, &in[0], &out[0])
}

func TestFindingsOfInvalidJSON(t *testing.T) {
	_, err := pii.Default.Findings([]byte(`{"email":"jane@example.com"`))

	assert.ErrorIs(t, err, pii.ErrNotJSON)
	assert.NotContains(t, err.Error(), "jane")
}

func TestKeyCategory(t *testing.T) {
	tests := []struct {
		key  string
		want pii.Category // "" names none
	}{
		{"email", pii.CategoryEmail}, {"Customer-Email", pii.CategoryEmail}, {"phone_number", pii.CategoryPhone},
		{"surname", pii.CategoryName}, {"cardholderName", pii.CategoryName}, {"username", pii.CategoryName},
		{"street_address", pii.CategoryAddress}, {"shipping", pii.CategoryAddress}, {"postcode", pii.CategoryAddress},
		{"birthday", pii.CategoryBirthdate}, {"dob", pii.CategoryBirthdate},
		{"remote_addr", pii.CategoryIP}, {"x_forwarded_for", pii.CategoryIP}, {"ipv6", pii.CategoryIP},
		{"ssn", pii.CategoryGovernmentID}, {"tax_id", pii.CategoryGovernmentID},
		{"card_number", pii.CategoryCard}, {"iban", pii.CategoryIBAN}, {"routing_number", pii.CategoryAccount},
		{"cvc", pii.CategorySecret}, {"new_password", pii.CategorySecret},
		{"zip", pii.CategoryAddress}, {"id", ""}, {"tip", ""}, {"shipping_rate", ""}, {"description", ""},
		{"recipient", ""}, {"address_id", ""}, {"email_verified", ""}, {"product_name", ""}, {"membership", ""},
		{"version", ""}, {"ip_allowlist", ""},
	}
	for _, tt := range tests {
		got, ok := pii.KeyCategory(tt.key)

		assert.Equal(t, tt.want, got, tt.key)
		assert.Equal(t, tt.want != "", ok, tt.key)
	}
}

func TestEveryDeniedKeyHasACategory(t *testing.T) {
	for _, k := range pii.DefaultDenylist {
		c, ok := pii.KeyCategory(k)

		assert.True(t, ok, k)
		assert.True(t, c.Valid(), k)
		assert.NotEqual(t, pii.CategoryPersonal, c, "%s has a better category than personal", k)
	}
}

func TestAPathOrCustomKeyWithNoCategoryIsPersonal(t *testing.T) {
	s, err := pii.New([]string{"meta.crm"}, []string{"loyalty_tier"})
	require.NoError(t, err)

	fs, err := s.Findings([]byte(`{"meta":{"crm":"x","surname_hint":"y"},"loyalty_tier":"gold"}`))

	require.NoError(t, err)
	assert.Equal(t, []pii.Finding{
		{Category: pii.CategoryPersonal, Value: `"x"`, Whole: true, Key: "crm"},
		{Category: pii.CategoryPersonal, Value: `"gold"`, Whole: true, Key: "loyaltytier"},
	}, fs)
}
