package main

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSoakPrintsARowPerIntervalWithPartnerDeliveries runs a short soak
// (5 s at 4 webhooks/s, a row a second) on the embedded engine: the table
// has a row per second with every collection counted, the Stripe and
// acme deliveries all taken, the deliver steps' partner received some,
// and the verdict line closes it.
func TestSoakPrintsARowPerIntervalWithPartnerDeliveries(t *testing.T) {
	t.Setenv("MONGODB_URI", "")
	t.Setenv("STREAMOPS_SCHEDULE_INTERVAL", "200ms")
	var out, errs bytes.Buffer
	code := run(context.Background(), []string{"soak", "-duration", "5s", "-interval", "1s", "-rate", "4", "-dir", t.TempDir()}, nil, &out, &errs)
	require.Equal(t, 0, code, "stderr: %s\nstdout: %s", errs.String(), out.String())

	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	require.Len(t, lines, 1+1+5+1, "the banner, the header, a row a second, the verdict:\n%s", out.String())
	header := strings.Fields(lines[1])
	for _, col := range []string{"deliveries/s", "errors", "partner", "events", "webhook_events", "workflows", "workflow_records", "integration_outbox"} {
		assert.Contains(t, header, col)
	}
	rowPattern := regexp.MustCompile(`^\s*\d+s\s`)
	var partner, events int
	for _, row := range lines[2:7] {
		require.Regexp(t, rowPattern, row)
		f := strings.Fields(row)
		require.Len(t, f, len(header), row)
		cell := func(name string) int {
			n, err := strconv.Atoi(f[slices.Index(header, name)])
			require.NoError(t, err, "%s in %s", name, row)
			return n
		}
		assert.Zero(t, cell("errors"), "every delivery taken: %s", row)
		partner += cell("partner")
		events = cell("events")
	}
	assert.Positive(t, partner, "the deliver steps reached the partner endpoint")
	assert.Greater(t, events, 5*4, "each webhook stores several events")
	assert.True(t, strings.HasPrefix(lines[7], "soak: "), lines[7])
}

// TestSoakServesItsProfilesWhenAsked: -pprof serves the soaking
// process's Go profiles on the address given, and says where; an address
// it cannot listen on fails the soak before it starts.
func TestSoakServesItsProfilesWhenAsked(t *testing.T) {
	var out bytes.Buffer
	stop, err := serveProfiles("127.0.0.1:0", &out)
	require.NoError(t, err)
	defer stop()
	url := regexp.MustCompile(`http://\S+/debug/pprof/`).FindString(out.String())
	require.NotEmpty(t, url, out.String())
	for path, want := range map[string]string{"": "goroutine", "heap?debug=1": "heap profile", "goroutine?debug=1": "goroutine profile"} {
		resp, err := http.Get(url + path)
		require.NoError(t, err)
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		require.NoError(t, err)
		assert.Equal(t, http.StatusOK, resp.StatusCode, path)
		assert.Contains(t, string(body), want, path)
	}

	taken, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer taken.Close()
	var errs bytes.Buffer
	code := run(context.Background(), []string{"soak", "-duration", "1s", "-pprof", taken.Addr().String(), "-dir", t.TempDir()}, nil, &out, &errs)
	assert.NotZero(t, code)
	assert.Contains(t, errs.String(), "-pprof")
}
