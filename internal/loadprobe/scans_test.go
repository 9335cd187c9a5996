package loadprobe_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/256dpi/lungo/bsonkit"
	"github.com/256dpi/lungo/mongokit"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/internal/loadprobe"
	"github.com/streamops/streamops/internal/store/storetest"
)

// scanFloor is the collection size from which a query that filters every
// document counts as one whose cost grows with the data: above what any
// test's work in flight holds, below what the fill stores.
const scanFloor = 300

// scheduleEvery is the scheduled functions' period in the test, so that
// they run several times while it watches.
const scheduleEvery = 300 * time.Millisecond

// TestNoQueryOnTheWebhookPathFiltersAWholeCollection is the class behind
// the embedded engine's slowdown as its data grows: a query no index
// narrows. On a stack filled to 5,000 events it sends deliveries from 8
// senders and waits for their workflows, with every function of make run
// beside the webhook function and the outbox-relay and retry-sweeper
// ticking every scheduleEvery, and fails naming each query that filtered
// a collection of scanFloor documents or more. The archiver, daily, is
// not on the path.
func TestNoQueryOnTheWebhookPathFiltersAWholeCollection(t *testing.T) {
	storetest.Require(t, storetest.ObservedScans)
	ctx := context.Background()
	s := startStack(t, t.TempDir(), scheduleEvery)
	kind, err := loadprobe.StripeInvoices(s.Providers(), s.WebhookSecret("stripe"))
	require.NoError(t, err)
	probe := &loadprobe.Probe{BaseURL: s.URL(), Kinds: []loadprobe.Kind{kind}, Senders: loadprobe.DefaultSenders}
	_, err = probe.Run(ctx, templateWebhooks)
	require.NoError(t, err)
	require.NoError(t, settle(ctx, s.Store()))
	tmpl, err := loadprobe.Capture(ctx, s.Store(), templateWebhooks)
	require.NoError(t, err)
	_, err = loadprobe.Fill(ctx, s.Store(), tmpl, 5000)
	require.NoError(t, err)

	var mu sync.Mutex
	scans := map[string]int{}
	mongokit.ObserveFullScans(func(q bsonkit.Doc, n int) {
		if n >= scanFloor {
			mu.Lock()
			scans[fmt.Sprintf("%v (%d documents)", *q, n)]++
			mu.Unlock()
		}
	})
	t.Cleanup(func() { mongokit.ObserveFullScans(nil) })
	rep, err := probe.Run(ctx, 100)
	require.NoError(t, err)
	require.Zero(t, rep.Errors(), "%s", rep)
	require.NoError(t, settle(ctx, s.Store()))
	time.Sleep(5 * scheduleEvery)
	mu.Lock()
	defer mu.Unlock()
	assert.Empty(t, scans, "queries that filtered a whole collection")
}
