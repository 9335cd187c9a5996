package embedded

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/256dpi/lungo"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/store/storetest"
)

// storedEvents opens the data file in dir as the store would after a
// restart and counts its events.
func storedEvents(t *testing.T, dir string) int64 {
	t.Helper()
	s, err := store.Open(context.Background(), store.Config{DataDir: dir})
	require.NoError(t, err)
	defer s.Close(context.Background())
	n, err := s.CountEvents(context.Background(), store.ReplayFilter{})
	require.NoError(t, err)
	return n
}

func openBackground(t *testing.T, dir string, interval time.Duration) (*store.Store, *BackgroundFileStore) {
	t.Helper()
	bg, err := NewBackgroundFileStore(filepath.Join(dir, storeFileName), 0o600, interval)
	require.NoError(t, err)
	s, err := store.Open(context.Background(), store.Config{Backing: bg})
	require.NoError(t, err)
	return s, bg
}

func TestBackgroundStoreCoalescesCommitsAndCloseLosesNothing(t *testing.T) {
	storetest.Require(t, storetest.EmbeddedFiles)
	dir := t.TempDir()
	s, bg := openBackground(t, dir, time.Hour) // nothing is written before Close
	ctx := context.Background()
	for _, ev := range benchEvents(200) {
		_, err := s.InsertEvents(ctx, []events.Envelope{ev})
		require.NoError(t, err)
	}
	assert.LessOrEqual(t, bg.Writes(), int64(1), "200 commits, at most one write within the interval")
	require.NoError(t, s.Close(ctx))
	require.NoError(t, bg.Close())
	assert.EqualValues(t, 200, storedEvents(t, dir), "Close wrote the last commits")
}

func TestBackgroundStoreWritesWithinTheInterval(t *testing.T) {
	storetest.Require(t, storetest.EmbeddedFiles)
	dir := t.TempDir()
	s, bg := openBackground(t, dir, 20*time.Millisecond)
	defer bg.Close()
	defer s.Close(context.Background())
	_, err := s.InsertEvents(context.Background(), benchEvents(3))
	require.NoError(t, err)
	// What a crash now would keep: the file as it is, without Close.
	require.Eventually(t, func() bool {
		c, err := lungo.NewFileStore(filepath.Join(dir, storeFileName), 0).Load()
		return err == nil && len(c.Namespaces) > 0 && storedEventsIn(c) == 3
	}, 5*time.Second, 10*time.Millisecond)
}

// storedEventsIn counts the documents of the events collection of c.
func storedEventsIn(c *lungo.Catalog) int {
	for h, ns := range c.Namespaces {
		if h[1] == store.CollEvents {
			return ns.Documents.Len()
		}
	}
	return 0
}

func TestBackgroundStoreFailingWritesFailCommitsUntilTheyWorkAgain(t *testing.T) {
	storetest.Require(t, storetest.EmbeddedFiles)
	dir := filepath.Join(t.TempDir(), "gone")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	s, bg := openBackground(t, dir, time.Millisecond)
	ctx := context.Background()
	_, err := s.InsertEvents(ctx, benchEvents(1))
	require.NoError(t, err)
	require.NoError(t, bg.Flush()) // nothing left to write

	require.NoError(t, os.RemoveAll(dir)) // the disk goes away
	_, err = s.InsertEvents(ctx, benchEvents(1))
	require.NoError(t, err, "accepted before the background write fails")
	require.Eventually(t, func() bool {
		_, err := s.InsertEvents(ctx, benchEvents(1))
		return err != nil
	}, 5*time.Second, 5*time.Millisecond, "once a write failed, commits report it")

	require.NoError(t, os.MkdirAll(dir, 0o755)) // back
	_, err = s.InsertEvents(ctx, benchEvents(1))
	require.NoError(t, err, "a synchronous write succeeded: back to background writes")
	require.NoError(t, s.Close(ctx))
	require.NoError(t, bg.Close())
	n := storedEvents(t, dir)
	assert.GreaterOrEqual(t, n, int64(3), "the newest catalog is on disk, never an older one")
}
