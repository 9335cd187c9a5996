package provider_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/streamops/streamops/internal/provider"
)

func TestDeliveryURLsAreShownWithoutCredentials(t *testing.T) {
	tests := []struct {
		name, url, want string
	}{
		{"plain", "https://hooks.acme.example/streamops", "https://hooks.acme.example/streamops"},
		{"port and path", "http://127.0.0.1:8443/in/orders", "http://127.0.0.1:8443/in/orders"},
		{"user and password", "https://svc:s3cret@hooks.acme.example/in", "https://REDACTED@hooks.acme.example/in"},
		{"user alone (an API key)", "https://sk_live_123@hooks.acme.example/in", "https://REDACTED@hooks.acme.example/in"},
		{"query values", "https://hooks.acme.example/in?api_key=s3cret&region=eu&token=a&token=b",
			"https://hooks.acme.example/in?api_key=REDACTED&region=REDACTED&token=REDACTED&token=REDACTED"},
		{"fragment", "https://hooks.acme.example/in#s3cret", "https://hooks.acme.example/in"},
		{"not a URL", "://s3cret", ""},
		{"no host", "s3cret", ""},
		{"empty", "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := provider.RedactURL(tc.url)
			assert.Equal(t, tc.want, got)
			assert.NotContains(t, got, "s3cret")
		})
	}
}
