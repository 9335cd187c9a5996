package store_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/256dpi/lungo"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/store/enginetest"
	"github.com/streamops/streamops/internal/store/storetest"
)

// TestContract runs the store's contract suite on the engine the test
// process runs on (enginetest: embedded by default, MongoDB in make
// test-mongo).
func TestContract(t *testing.T) {
	storetest.Run(t, enginetest.Open)
}

func TestFileStoreKeepsDataAcrossRestarts(t *testing.T) {
	enginetest.Require(t, enginetest.EmbeddedFiles)
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
	enginetest.Require(t, enginetest.EmbeddedFiles)
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
