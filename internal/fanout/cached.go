package fanout

import (
	"context"
	"sync"
	"time"

	"github.com/streamops/streamops/internal/subscribe"
)

// DefaultCacheTTL is how long a Cached directory keeps what it read: a
// subscription changed at run time applies to the events stored a few
// seconds later at the most.
const DefaultCacheTTL = 5 * time.Second

// Cached is a Directory read at most once per TTL. Fan-out asks
// for the partners at every events insert; a directory kept in the store
// would otherwise add a read to each, where an insert nobody subscribes
// to must cost no command beyond itself. Safe for concurrent use.
type Cached struct {
	dir Directory
	ttl time.Duration
	now func() time.Time

	mu       sync.Mutex
	readAt   time.Time
	partners map[string][]subscribe.Subscription
}

// NewCached caches dir for ttl (DefaultCacheTTL when 0) by the clock now
// (time.Now when nil).
func NewCached(dir Directory, ttl time.Duration, now func() time.Time) *Cached {
	if ttl <= 0 {
		ttl = DefaultCacheTTL
	}
	if now == nil {
		now = time.Now
	}
	return &Cached{dir: dir, ttl: ttl, now: now}
}

// Subscriptions returns what was read within the TTL, or reads it
// again. A failed read is returned as is (the insert fails and is
// retried), never hidden behind an older answer: a partner deleted
// meanwhile must not keep receiving.
func (c *Cached) Subscriptions(ctx context.Context) (map[string][]subscribe.Subscription, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	if c.partners != nil && now.Sub(c.readAt) < c.ttl && !now.Before(c.readAt) {
		return c.partners, nil
	}
	partners, err := c.dir.Subscriptions(ctx)
	if err != nil {
		return nil, err
	}
	c.partners, c.readAt = partners, now
	return partners, nil
}
