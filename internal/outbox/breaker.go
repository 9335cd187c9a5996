package outbox

import (
	"sync"
	"time"

	"github.com/streamops/streamops/internal/fault"
	"github.com/streamops/streamops/internal/outbox/partnerstatus"
	"github.com/streamops/streamops/internal/store"
)

// BreakerConfig tunes the per-partner circuit breaker.
type BreakerConfig struct {
	// Failures is how many consecutive failed deliveries open the breaker.
	// Default 5.
	Failures int
	// Cooldown is how long an open breaker pauses deliveries before it lets
	// them try again (half-open). Default 1 minute: one relay schedule tick.
	Cooldown time.Duration
}

func (c *BreakerConfig) setDefaults() {
	if c.Failures <= 0 {
		c.Failures = 5
	}
	if c.Cooldown <= 0 {
		c.Cooldown = time.Minute
	}
}

// breakers is the breaker state of the partners of one batch: loaded from
// the store before delivering, saved once after.
type breakers struct {
	cfg     BreakerConfig
	mu      sync.Mutex
	eps     map[string]*store.PartnerEndpoint
	changed map[string]bool
}

func newBreakers(cfg BreakerConfig, loaded map[string]store.PartnerEndpoint) *breakers {
	b := &breakers{cfg: cfg, eps: map[string]*store.PartnerEndpoint{}, changed: map[string]bool{}}
	for id, ep := range loaded {
		b.eps[id] = &ep
	}
	return b
}

func (b *breakers) get(id string) *store.PartnerEndpoint {
	ep, ok := b.eps[id]
	if !ok {
		ep = &store.PartnerEndpoint{PartnerID: id, State: partnerstatus.BreakerClosed}
		b.eps[id] = ep
	}
	return ep
}

// allow reports whether a delivery to partner id may go now; when not, it
// returns when the breaker lets deliveries try again.
func (b *breakers) allow(id string, now time.Time) (bool, time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	ep := b.get(id)
	if ep.State == partnerstatus.BreakerOpen {
		if ep.OpenUntil != nil && now.Before(*ep.OpenUntil) {
			return false, *ep.OpenUntil
		}
		ep.State = partnerstatus.BreakerHalfOpen
		b.changed[id] = true
	}
	return true, time.Time{}
}

// record counts a delivery's outcome. Only failures that say the endpoint
// is unhealthy (retryable ones: 5xx, 408, 429, timeouts) count; a 4xx
// refusal came from a working endpoint.
func (b *breakers) record(id string, err error, now time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	ep := b.get(id)
	b.changed[id] = true
	if err == nil || !fault.IsRetryable(err) {
		if err == nil {
			ep.LastSuccessAt = &now
		}
		ep.State, ep.ConsecutiveFailures, ep.OpenedAt, ep.OpenUntil = partnerstatus.BreakerClosed, 0, nil, nil
		return
	}
	ep.ConsecutiveFailures++
	ep.LastError, ep.LastFailureAt = err.Error(), &now
	if ep.State == partnerstatus.BreakerHalfOpen || ep.ConsecutiveFailures >= b.cfg.Failures {
		until := now.Add(b.cfg.Cooldown)
		ep.State, ep.OpenedAt, ep.OpenUntil = partnerstatus.BreakerOpen, &now, &until
	}
}

// dirty returns the endpoints whose state changed in this batch.
func (b *breakers) dirty() []store.PartnerEndpoint {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make([]store.PartnerEndpoint, 0, len(b.changed))
	for id := range b.changed {
		out = append(out, *b.eps[id])
	}
	return out
}
