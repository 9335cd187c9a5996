package pii_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/internal/pii"
)

// issueWebhook is the Stripe webhook of issue 23: an email address in a
// key of its own and, with a phone number, in free text.
const issueWebhook = `{"id":"evt_1PiiTestLkdIwHu7ix","object":"event","type":"charge.succeeded","created":1718452800,
"data":{"object":{"id":"ch_3PiiTest","object":"charge","amount":129900,"currency":"usd","customer":"cus_123",
"recipient":"jane.doe@example.com","description":"call +1 415 555 0100 or mail jane.doe@example.com",
"metadata":{"sent_at_ms":"1655292809853","order":"order-12345","date":"2024-06-15"}}}}`

func TestScrubTheIssuesStripeWebhook(t *testing.T) {
	out, err := pii.Scrub([]byte(issueWebhook))

	require.NoError(t, err)
	assert.JSONEq(t, `{"id":"evt_1PiiTestLkdIwHu7ix","object":"event","type":"charge.succeeded","created":1718452800,
"data":{"object":{"id":"ch_3PiiTest","object":"charge","amount":129900,"currency":"usd","customer":"cus_123",
"recipient":"[redacted:email]","description":"call [redacted:phone] or mail [redacted:email]",
"metadata":{"sent_at_ms":"1655292809853","order":"order-12345","date":"2024-06-15"}}}}`, string(out))
}

func TestScrub(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"denied key, any spelling, any depth", `{"a":[{"First-Name":"Jane","id":1}]}`, `{"a":[{"First-Name":"[REDACTED]","id":1}]}`},
		{"a denied key's object goes whole", `{"shipping":{"city":"X","phone":"+15555550123"}}`, `{"shipping":"[REDACTED]"}`},
		{"a denied key's null stays null", `{"email":null}`, `{"email":null}`},
		{"values under any key", `{"note":"mail jane@example.com","n":[" +15555550123 "]}`,
			`{"note":"mail [redacted:email]","n":[" [redacted:phone] "]}`},
		{"escaped text is read as decoded", `{"note":"jane\u0040example.com\n\"ok\""}`, `{"note":"[redacted:email]\n\"ok\""}`},
		{"keys too, kept distinct", `{"jane@example.com":1,"+15555550123":2,"bob@example.org":3,"plain":4}`,
			`{"[redacted:email]":1,"[redacted:phone] #2":2,"[redacted:email] #3":3,"plain":4}`},
		{"a number is a card or phone number only as a whole", `{"pan":4242424242424242,"ts":1655292809853,"amount":129900,"x":1.5e300}`,
			`{"pan":"[redacted:card]","ts":1655292809853,"amount":129900,"x":1.5e300}`},
		{"a base64 string goes whole", `{"state":"amFuZUBleGFtcGxlLmNvbQ=="}`, `{"state":"[redacted:email]"}`},
		{"keys named by their ending", `{"customer_surname":"Doe","remote_addr":"203.0.113.7","zip_code":null}`,
			`{"customer_surname":"[REDACTED]","remote_addr":"[REDACTED]","zip_code":null}`},
		{"a top-level string", `"jane@example.com"`, `"[redacted:email]"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := pii.Scrub([]byte(tt.in))

			require.NoError(t, err)
			assert.Equal(t, tt.want, string(out))
			assert.True(t, json.Valid(out))
		})
	}
}

func TestScrubKeepsTheBytesItDoesNotScrub(t *testing.T) {
	in := []byte("{ \"price\" : 129.90,\n\"big\":12345678901234567890, \"exp\":1e3,\"url\":\"https://x.io/?a=1&b=<2>\",\"email\":\"x\" }")

	out, err := pii.Scrub(in)

	require.NoError(t, err)
	assert.Equal(t, "{ \"price\" : 129.90,\n\"big\":12345678901234567890, \"exp\":1e3,\"url\":\"https://x.io/?a=1&b=<2>\",\"email\":\"[REDACTED]\" }", string(out))
}

func TestScrubReturnsACleanDocumentWithoutCopying(t *testing.T) {
	in := []byte(`{"id":"cus_123","created":1655292809853,"items":[{"price":"129.90"}]}`)

	out, err := pii.Scrub(in)

	require.NoError(t, err)
	assert.Same(t, &in[0], &out[0])
}

func TestScrubWithPaths(t *testing.T) {
	s, err := pii.Default.WithPaths("metadata.*", "items.#.note", `a\.b`)
	require.NoError(t, err)

	out, err := s.Scrub([]byte(`{"metadata":{"crm":"bob","n":null},"items":[{"note":"x","n":1}],"a.b":{"c":1},"a":{"b":2}}`))

	require.NoError(t, err)
	assert.Equal(t, `{"metadata":{"crm":"[REDACTED]","n":null},"items":[{"note":"[REDACTED]","n":1}],"a.b":"[REDACTED]","a":{"b":2}}`, string(out))
	_, err = pii.Default.WithPaths("a..b")
	assert.EqualError(t, err, `redact path "a..b": segment 2 of path "a..b" is empty`)
}

func TestScrubRefusesWhatIsNotOneJSONValue(t *testing.T) {
	for _, in := range []string{``, `{"email":"jane@example.com"`, `{"a":1}{"b":2}`, `email=jane@example.com`} {
		out, err := pii.Scrub([]byte(in))

		assert.Nil(t, out)
		assert.ErrorIs(t, err, pii.ErrNotJSON, in)
		if err != nil {
			assert.NotContains(t, err.Error(), "jane", "the error never quotes the document")
		}
	}
}

func TestScrubFixturesLeavesNoPatternMatch(t *testing.T) {
	files, err := filepath.Glob("../../testdata/webhooks/*.json")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		body, err := os.ReadFile(f)
		require.NoError(t, err)

		out, err := pii.Scrub(body)

		require.NoError(t, err, f)
		var v any
		require.NoError(t, json.Unmarshal(out, &v))
		assert.Empty(t, firstMatch(v), f)
	}
}
