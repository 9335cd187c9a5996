package main

import (
	"bytes"
	"context"
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
