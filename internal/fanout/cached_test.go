package fanout_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/internal/fanout"
	"github.com/streamops/streamops/internal/outbox"
	"github.com/streamops/streamops/internal/store/storetest"
	"github.com/streamops/streamops/internal/subscribe"
)

// countingDirectory counts its reads.
type countingDirectory struct {
	directory
	reads int
}

func (c *countingDirectory) Partners(ctx context.Context) (map[string]outbox.Partner, error) {
	c.reads++
	return c.directory.Partners(ctx)
}

func TestCachedDirectoryReadsOncePerTTLAndNeverHidesAFailure(t *testing.T) {
	ctx := context.Background()
	clock := storetest.NewClock()
	dir := &countingDirectory{directory: directory{partners: map[string]outbox.Partner{"acme": partner("acme")}}}
	c := fanout.NewCached(fanout.Over(dir, subscriptionsOf), 5*time.Second, clock.Now)

	for range 3 {
		got, err := c.Subscriptions(ctx)
		require.NoError(t, err)
		assert.Contains(t, got, "acme")
	}
	assert.Equal(t, 1, dir.reads, "within the TTL")

	dir.set(map[string]outbox.Partner{"beta": partner("beta")}, nil)
	clock.Advance(4 * time.Second)
	got, _ := c.Subscriptions(ctx)
	assert.Contains(t, got, "acme", "a change shows after the TTL, not before")
	clock.Advance(time.Second)
	got, err := c.Subscriptions(ctx)
	require.NoError(t, err)
	assert.Equal(t, []string{"beta"}, keys(got))
	assert.Equal(t, 2, dir.reads)

	dir.set(nil, errors.New("store unavailable"))
	clock.Advance(5 * time.Second)
	_, err = c.Subscriptions(ctx)
	require.ErrorContains(t, err, "store unavailable", "not the older answer")
}

func keys(m map[string][]subscribe.Subscription) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
