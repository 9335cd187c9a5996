package store_test

import (
	"context"
	"testing"

	"github.com/256dpi/lungo"
	"github.com/stretchr/testify/require"
	"go.mongodb.org/mongo-driver/mongo/options"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/store/storetest"
)

// BenchmarkEventInsertIndexCost is what the events collection's indexes
// cost an event insert on the engine under test: the webhook's commit (two
// events, one bulk insert) into the store's events collection with every
// seed index, without the text index, and with only the unique event_id
// index, as a webhook's commit (2 events) and a processor's (500 in one
// bulk insert). On FerretDB it is the reason the webhook and processor
// ratios to their raw baselines stay low (docs/performance.md). Each side
// has a store (a database) of its own.
func BenchmarkEventInsertIndexCost(b *testing.B) {
	ctx := context.Background()
	keepAll := func(string) bool { return true }
	sides := []struct {
		name string
		keep func(name string) bool
	}{
		{"indexes=seed", keepAll},
		{"indexes=seed-without-text", func(n string) bool { return n != "idx_text_search" }},
		{"indexes=event_id-only", func(n string) bool { return n == "_id_" || n == "event_id_1" }},
	}
	for _, side := range sides {
		b.Run(side.name, func(b *testing.B) {
			cfg := storetest.Configure(b, store.Config{})
			s, err := store.Open(ctx, cfg)
			require.NoError(b, err)
			b.Cleanup(func() { _ = s.Close(ctx) })
			dropIndexes(b, s, cfg, side.keep)
			b.Run("commit=2", func(b *testing.B) {
				for b.Loop() {
					if _, err := s.InsertEvents(ctx, []events.Envelope{growthEvent("exec"), growthEvent("exec")}); err != nil {
						b.Fatal(err)
					}
				}
			})
			// A processor's batch: 500 events in one bulk insert.
			b.Run("commit=500", func(b *testing.B) {
				batch := make([]events.Envelope, 500)
				for b.Loop() {
					for i := range batch {
						batch[i] = growthEvent("exec")
					}
					if _, err := s.InsertEvents(ctx, batch); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N*len(batch)), "ms/event")
			})
		})
	}
}

// dropIndexes drops the events indexes keep refuses, on a connection of
// its own to the store's database (the store has no such operation).
func dropIndexes(b *testing.B, s *store.Store, cfg store.Config, keep func(string) bool) {
	ctx := context.Background()
	have, err := s.ListIndexes(ctx, store.CollEvents)
	require.NoError(b, err)
	var coll lungo.ICollection
	if cfg.URI == "" {
		b.Skip("the embedded engine's indexes are the store's own; measured on MongoDB only")
	}
	client, err := lungo.Connect(ctx, options.Client().ApplyURI(cfg.URI))
	require.NoError(b, err)
	b.Cleanup(func() { _ = client.Disconnect(context.Background()) })
	coll = client.Database(cfg.Database).Collection(store.CollEvents)
	for _, ix := range have {
		if !keep(ix.Name) {
			_, err := coll.Indexes().DropOne(ctx, ix.Name)
			require.NoError(b, err, ix.Name)
		}
	}
}
