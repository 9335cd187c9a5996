package outbox_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/internal/fault"
	"github.com/streamops/streamops/internal/outbox"
	"github.com/streamops/streamops/internal/provider"
)

// TestADeliveryErrorNeverQuotesTheURLsCredentials: a partner URL may carry
// its credentials (a user and password, a key in the query); an error that
// quotes the URL (a refused connection, a URL that does not parse) is
// kept in last_error, the delivery log and the logs without them.
func TestADeliveryErrorNeverQuotesTheURLsCredentials(t *testing.T) {
	d := outbox.PartnerDeliverer{Secrets: provider.EnvSecrets{Prefix: "PARTNER_SECRET_",
		Lookup: func(string) string { return "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw" }}}
	cases := []struct{ name, url string }{
		{"a refused connection", "http://ops:hunter2@127.0.0.1:1/hook?key=s3cret&v=2"},
		{"a URL that does not parse", "http://ops:hunter2@[::1]:port/hook?key=s3cret"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := d.Send(context.Background(), outbox.Partner{ID: "acme", URL: c.url},
				outbox.Entry{ID: "ob-1", Payload: json.RawMessage(`{"id":1}`)})
			require.Error(t, a.Err)
			text := fault.Text(a.Err)
			assert.NotContains(t, text, "s3cret")
			assert.NotContains(t, text, "hunter2")
			assert.NotContains(t, a.Err.Error(), "s3cret", "the error itself, as the relay logs it")
		})
	}
}
