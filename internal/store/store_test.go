package store_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/256dpi/lungo"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/internal/fault"
	"github.com/streamops/streamops/internal/status"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/store/storetest"
)

// TestContract runs the store's contract suite on the engine the test
// process runs on (storetest: embedded by default, MongoDB in make
// test-mongo).
func TestContract(t *testing.T) {
	storetest.Run(t, storetest.Open)
}

func TestFileStoreKeepsDataAcrossRestarts(t *testing.T) {
	storetest.Require(t, storetest.EmbeddedFiles)
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
	storetest.Require(t, storetest.EmbeddedFiles)
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
	require.NoError(t, s.SetWebhookStatus(ctx, store.WebhookEventID("stripe", "evt_0"), status.WebhookSkipped, ""))

	require.NotNil(t, backing.last)
	assert.Len(t, backing.last.Namespaces[lungo.Oplog].Documents.List(), 0, "every commit drops the oplog")
	assert.Len(t, backing.last.Namespaces[lungo.Handle{"streamops", store.CollWebhookEvents}].Documents.List(), n, "the data is all there")
	got, err := s.GetWebhookEvent(ctx, store.WebhookEventID("stripe", "evt_0"))
	require.NoError(t, err)
	assert.Equal(t, status.WebhookSkipped, got.Status)
}

// TestLostConnectionIsTransient takes MongoDB away from an open store, by
// cutting the connection or by stalling it (connections open, no answer,
// as a paused server): commands fail with ErrUnavailable (retry), not with
// a permanent error or "not found", within the store's operation timeout
// rather than at the caller's deadline, and work again once it is back.
func TestLostConnectionIsTransient(t *testing.T) {
	storetest.Require(t, storetest.Network)
	tests := []struct {
		name string
		lose func(*storetest.Proxy)
	}{
		{"cut", (*storetest.Proxy).Cut},
		{"stalled", (*storetest.Proxy).Stall},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := storetest.Configure(t, store.Config{ConnectTimeout: 2 * time.Second, OperationTimeout: time.Second})
			var p *storetest.Proxy
			cfg.URI, p = storetest.ProxyURI(t, cfg.URI)
			ctx := context.Background()
			s, err := store.Open(ctx, cfg)
			require.NoError(t, err)
			defer s.Close(ctx)
			_, err = s.InsertWebhookEvent(ctx, store.WebhookEvent{Provider: "p", ProviderEventID: "before"})
			require.NoError(t, err)

			tc.lose(p)
			caller, cancel := context.WithTimeout(ctx, time.Minute)
			defer cancel()
			_, err = s.InsertWebhookEvent(caller, store.WebhookEvent{Provider: "p", ProviderEventID: "during"})
			assert.ErrorIs(t, err, store.ErrUnavailable, "insert while lost")
			_, err = s.GetWebhookEvent(caller, store.WebhookEventID("p", "before"))
			assert.ErrorIs(t, err, store.ErrUnavailable, "read while lost")
			assert.NotErrorIs(t, err, store.ErrNotFound)
			assert.NoError(t, caller.Err(), "the operation timeout ended the commands, not the caller's deadline")

			p.Restore()
			assert.Eventually(t, func() bool {
				_, err := s.GetWebhookEvent(ctx, store.WebhookEventID("p", "before"))
				return err == nil
			}, 20*time.Second, 100*time.Millisecond, "the store recovers once the connection is back")
		})
	}
}

func TestCheckDecodedRefusesWhatNoEngineCanStore(t *testing.T) {
	tests := []struct{ name, doc, field string }{
		{"storable", `{"a":{"b":[1,2.5,"x",null,true]},"big":123456789012345678901234567890}`, "-"},
		{"NUL in a nested key", `{"payload":{"data":{"k\u0000":1}}}`, "payload.data.k\x00"},
		{"number past every range", `{"payload":{"n":[0,1e9999]}}`, "payload.n.1"},
		{"more digits than a decimal holds", `{"n":0.12345678901234567890123456789012345678}`, "n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dec := json.NewDecoder(strings.NewReader(tc.doc))
			dec.UseNumber()
			var decoded any
			require.NoError(t, dec.Decode(&decoded))
			err := store.CheckDecoded(len(tc.doc), decoded)
			if tc.field == "-" {
				assert.NoError(t, err)
				return
			}
			var invalid *store.InvalidDocumentError
			require.ErrorAs(t, err, &invalid)
			assert.Equal(t, tc.field, invalid.Field)
		})
	}
}

func TestStoreErrorsCarryTheirRetryVerdict(t *testing.T) {
	s := storetest.Open(t, store.Config{})
	expired, cancel := context.WithTimeout(context.Background(), -time.Second)
	defer cancel()
	_, err := s.GetWebhookEvent(expired, "x")
	require.ErrorIs(t, err, store.ErrUnavailable)
	assert.True(t, fault.IsRetryable(err), "unavailable: retry")
	_, err = s.InsertWebhookEvent(context.Background(), store.WebhookEvent{Provider: "p", ProviderEventID: "1", Payload: store.JSONDoc(`{"a\u0000":1}`)})
	require.ErrorIs(t, err, store.ErrInvalidDocument)
	assert.False(t, fault.IsRetryable(err), "a document no engine stores: never retry")
}

func TestCheckDecodedRefusesAnOversizeDocumentAndANonObject(t *testing.T) {
	big := strings.Repeat("x", store.MaxDocumentSize)
	var invalid *store.InvalidDocumentError
	err := store.CheckDecoded(len(big)+10, map[string]any{"s": big})
	require.ErrorAs(t, err, &invalid, "too large")
	assert.Error(t, store.CheckDecoded(2, []any{}), "not an object")
}
