package store_test

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/256dpi/lungo"
	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
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

// lastCatalog is a lungo.Store that remembers the last catalog committed.
type lastCatalog struct {
	mem  lungo.Store
	last *lungo.Catalog
}

func (l *lastCatalog) Load() (*lungo.Catalog, error) { return l.mem.Load() }

func (l *lastCatalog) Store(c *lungo.Catalog) error {
	l.last = c
	return l.mem.Store(c)
}

func TestEmbeddedEngineKeepsNoOplog(t *testing.T) {
	ctx := context.Background()
	backing := &lastCatalog{mem: lungo.NewMemoryStore()}
	s, err := store.Open(ctx, store.Config{Backing: backing})
	require.NoError(t, err)
	defer s.Close(ctx)
	const n = 50
	for i := range n {
		_, err := s.InsertWebhookEvent(ctx, store.WebhookEvent{Provider: "stripe", ProviderEventID: fmt.Sprint("evt_", i), EventType: "invoice.paid"})
		require.NoError(t, err)
	}
	require.NoError(t, s.SetWebhookStatus(ctx, store.WebhookEventID("stripe", "evt_0"), store.WebhookSkipped, ""))

	require.NotNil(t, backing.last)
	assert.Len(t, backing.last.Namespaces[lungo.Oplog].Documents.List, 0, "every commit drops the oplog")
	assert.Len(t, backing.last.Namespaces[lungo.Handle{"streamops", store.CollWebhookEvents}].Documents.List, n, "the data is all there")
	got, err := s.GetWebhookEvent(ctx, store.WebhookEventID("stripe", "evt_0"))
	require.NoError(t, err)
	assert.Equal(t, store.WebhookSkipped, got.Status)
}
