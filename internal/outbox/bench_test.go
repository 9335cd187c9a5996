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
// The partners=N rows deliver the same 500 entries in batches of 100
// spread over N partners, each its own httptest endpoint: 10 subscribed
// partners against one.
func BenchmarkRelay(b *testing.B) {
	const perOp = 500
	for _, target := range []string{outbox.TargetKafka, "acme"} {
		for _, batch := range []int{100, 1} {
			b.Run(fmt.Sprintf("target=%s/batch=%d", target, batch), func(b *testing.B) {
				h := newHarness(b)
				r := h.relay(b, func(c *outbox.Config) { c.BatchSize = batch; c.PartnerConcurrency = 8 })
				benchRelay(b, h, r, perOp, func() { h.enqueue(b, target, perOp) })
			})
		}
	}
	for _, n := range []int{1, 10} {
		b.Run(fmt.Sprintf("partners=%d", n), func(b *testing.B) {
			h := newHarness(b)
			partners := map[string]outbox.Partner{}
			for i := range n {
				id := fmt.Sprintf("p%d", i)
				partners[id] = outbox.Partner{ID: id, Name: id, URL: newPartner(b).srv.URL}
			}
			r := h.relay(b, func(c *outbox.Config) { c.BatchSize = 100; c.PartnerConcurrency = 8; c.Partners = partners })
			benchRelay(b, h, r, perOp, func() {
				for id := range partners {
					h.enqueue(b, id, perOp/n)
				}
			})
		})
	}
}

// benchRelay runs r over perOp entries that enqueue stores, once per
// iteration, and reports commands/entry and entries/s.
func benchRelay(b *testing.B, h *harness, r *outbox.Relay, perOp int, enqueue func()) {
	var commands int64
	delivered := 0
	for b.Loop() {
		b.StopTimer()
		enqueue()
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
}
