package store_test

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/store/storetest"
)

// openEmbedded opens a fresh in-memory embedded store per test.
func openEmbedded(t *testing.T, cfg store.Config) *store.Store {
	t.Helper()
	s, err := store.Open(context.Background(), cfg)
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close(context.Background()) })
	return s
}

func TestEmbeddedEngineContract(t *testing.T) {
	storetest.Run(t, openEmbedded, storetest.Features{TTL: true})
}

// TestMongoDBContract runs the same suite on a real MongoDB when MONGODB_URI
// is set, each test in a database of its own that is dropped afterwards.
func TestMongoDBContract(t *testing.T) {
	uri := os.Getenv("MONGODB_URI")
	if uri == "" {
		t.Skip("MONGODB_URI not set")
	}
	storetest.Run(t, func(t *testing.T, cfg store.Config) *store.Store {
		cfg.URI = uri
		cfg.Database = fmt.Sprintf("streamops_test_%s", uuid.NewString()[:8])
		s := openEmbedded(t, cfg)
		t.Cleanup(func() { _ = s.DropDatabase(context.Background()) })
		return s
	}, storetest.Features{})
}

func TestFileStoreKeepsDataAcrossRestarts(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	s, err := store.Open(ctx, store.Config{DataDir: dir})
	require.NoError(t, err)
	_, err = s.InsertWebhookEvent(ctx, store.WebhookEvent{Provider: "stripe", ProviderEventID: "evt_1", EventType: "invoice.paid"})
	require.NoError(t, err)
	require.NoError(t, s.Close(ctx))

	s, err = store.Open(ctx, store.Config{DataDir: dir})
	require.NoError(t, err)
	defer s.Close(ctx)
	got, err := s.GetWebhookEvent(ctx, store.WebhookEventID("stripe", "evt_1"))
	require.NoError(t, err)
	require.Equal(t, "invoice.paid", got.EventType)
}

func TestConfigRejectsNegativeDurations(t *testing.T) {
	_, err := store.Open(context.Background(), store.Config{EventTTL: -time.Second})
	require.ErrorContains(t, err, "EventTTL")
}
