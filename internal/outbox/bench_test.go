package outbox_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/internal/outbox"
)

// BenchmarkRelay delivers 500 entries per iteration to kfake and to an
// httptest partner, in batches of 100 and one entry at a time (the
// baseline), and reports store commands per delivered entry and entries/s.
func BenchmarkRelay(b *testing.B) {
	const perOp = 500
	for _, target := range []string{outbox.TargetKafka, "acme"} {
		for _, batch := range []int{100, 1} {
			b.Run(fmt.Sprintf("target=%s/batch=%d", target, batch), func(b *testing.B) {
				h := newHarness(b)
				r := h.relay(b, func(c *outbox.Config) { c.BatchSize = batch; c.PartnerConcurrency = 8 })
				var commands int64
				delivered := 0
				for b.Loop() {
					b.StopTimer()
					h.enqueue(b, target, perOp)
					start := h.Store.Commands()
					b.StartTimer()
					st, err := r.Run(context.Background())
					require.NoError(b, err)
					require.Equal(b, perOp, st.Delivered)
					delivered += st.Delivered
					commands += h.Store.Commands() - start
					b.StopTimer()
					h.clearOutbox(b)
					b.StartTimer()
				}
				b.ReportMetric(float64(commands)/float64(delivered), "commands/entry")
				b.ReportMetric(float64(delivered)/b.Elapsed().Seconds(), "entries/s")
			})
		}
	}
}
