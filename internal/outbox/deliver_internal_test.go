package outbox

import (
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
)

// A partner request's span never shows a credential of its URL.
func TestRequestAttributesRedactTheURLsCredentials(t *testing.T) {
	tests := []struct {
		raw, full, host string
		port            int64
	}{
		{"https://acme.example/hooks", "https://acme.example/hooks", "acme.example", 443},
		{"http://acme.example:8080/hooks", "http://acme.example:8080/hooks", "acme.example", 8080},
		{"https://user:secret@acme.example/h?api_key=k1&api_key=k2&v=1#frag",
			"https://REDACTED@acme.example/h?api_key=REDACTED&api_key=REDACTED&v=REDACTED", "acme.example", 443},
	}
	for _, tc := range tests {
		t.Run(tc.raw, func(t *testing.T) {
			u, err := url.Parse(tc.raw)
			require.NoError(t, err)
			attrs := attribute.NewSet(requestAttributes(u)...)
			get := func(k attribute.Key) attribute.Value { v, _ := attrs.Value(k); return v }
			assert.Equal(t, "POST", get("http.request.method").AsString())
			assert.Equal(t, tc.full, get("url.full").AsString())
			assert.Equal(t, tc.host, get("server.address").AsString())
			assert.Equal(t, tc.port, get("server.port").AsInt64())
			assert.Equal(t, tc.raw, u.String(), "the request's own URL is untouched")
		})
	}
}
