package main

import (
	"context"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/internal/httpapi"
	"github.com/streamops/streamops/internal/local"
	"github.com/streamops/streamops/internal/provider"
	"github.com/streamops/streamops/internal/testenv"
)

// TestRunStartsTheStackAndStopsOnSignal runs `streamops run` as make run
// does (configured by the environment), sends the banner's curl request,
// and stops it as Ctrl-C would.
func TestRunStartsTheStackAndStopsOnSignal(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("STREAMOPS_DATA_DIR", dir)
	t.Setenv("STREAMOPS_HTTP_ADDR", "127.0.0.1:0")
	t.Setenv("STREAMOPS_KAFKA_ADDR", "127.0.0.1:0")
	t.Setenv("STREAMOPS_LOG_LEVEL", "error")
	t.Setenv("KAFKA_BROKERS", "")
	t.Setenv("MONGODB_URI", "")
	t.Setenv("STREAMOPS_ADMIN_TOKEN", "")
	t.Setenv("WEBHOOK_SECRET_STRIPE", "")

	var out, errOut testenv.Output
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int)
	go func() { done <- run(ctx, []string{"run"}, strings.NewReader(""), &out, &errOut) }()
	require.Eventually(t, func() bool { return strings.Contains(out.String(), "Ctrl-C stops the stack") }, 30*time.Second, 10*time.Millisecond, errOut.String())

	banner := out.String()
	assert.Regexp(t, `STREAMOPS_ADMIN_TOKEN=so_local_\S+`, banner)
	assert.Contains(t, banner, "kcat -b 127.0.0.1:")
	sig := regexp.MustCompile(`-H 'Stripe-Signature: ([^']+)'`).FindStringSubmatch(banner)
	body := regexp.MustCompile(`--data-raw '([^']+)'`).FindStringSubmatch(banner)
	url := regexp.MustCompile(`-X POST '([^']+)'`).FindStringSubmatch(banner)
	require.NotNil(t, sig, banner)
	require.NotNil(t, body)
	require.NotNil(t, url)
	req, _ := http.NewRequest("POST", url[1], strings.NewReader(body[1]))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Stripe-Signature", sig[1])
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusAccepted, resp.StatusCode, "the banner's curl is accepted")

	cancel() // SIGINT
	select {
	case code := <-done:
		assert.Equal(t, 0, code, errOut.String())
	case <-time.After(30 * time.Second):
		t.Fatal("the stack did not stop")
	}
	assert.Contains(t, out.String(), "stopped.")

	// `streamops curl` signs with the secret the stack generated.
	code, curl, curlErr := runCLI("", "curl", "-url", "http://example.test")
	require.Equal(t, 0, code, curlErr)
	secret, err := local.WebhookSecret(dir, "stripe", func(string) string { return "" })
	require.NoError(t, err)
	providers, err := provider.LoadProviders("")
	require.NoError(t, err)
	p, _ := providers.Provider("stripe")
	sig = regexp.MustCompile(`-H 'Stripe-Signature: ([^']+)'`).FindStringSubmatch(curl)
	body = regexp.MustCompile(`--data-raw '([^']+)'`).FindStringSubmatch(curl)
	require.NotNil(t, sig, curl)
	assert.NoError(t, p.Verify(http.Header{"Stripe-Signature": {sig[1]}}, []byte(body[1]), []string{secret}, time.Now()))
	assert.Contains(t, curl, "'http://example.test/webhooks/stripe'")
}

func TestOpenAPIPrintsTheDocumentTheAPIServes(t *testing.T) {
	code, out, errOut := runCLI("", "openapi")
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, string(httpapi.OpenAPIDocument()), out)
}
