package outbox_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/internal/outbox"
	"github.com/streamops/streamops/internal/testenv"
)

// TestRelayRunLogsAtInfoOnlyWhenItDidSomething: a run with nothing due
// logs "outbox relay run finished" at debug, so a schedule of seconds
// stays quiet at info; a run that delivered logs it at info with what it
// did.
func TestRelayRunLogsAtInfoOnlyWhenItDidSomething(t *testing.T) {
	for _, tc := range []struct {
		name    string
		entries int
		level   string
		counts  map[string]any
	}{
		{name: "idle", entries: 0, level: "DEBUG", counts: map[string]any{}},
		{name: "delivered two entries", entries: 2, level: "INFO",
			counts: map[string]any{"batches": float64(1), "claimed": float64(2), "delivered": float64(2)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			h.enqueue(t, "acme", tc.entries)
			var logs testenv.Output
			_, err := h.relay(t, func(c *outbox.Config) { c.Logger = logs.DebugLogger() }).Run(t.Context())
			require.NoError(t, err)

			rec := logs.Record(t, "outbox relay run finished")
			assert.Equal(t, tc.level, rec["level"])
			assert.Equal(t, tc.counts, testenv.NonZero(rec["stats"]), "what the run did")
		})
	}
}
