package outbox

import (
	"sync"
	"time"

	"github.com/streamops/streamops/internal/fault"
	"github.com/streamops/streamops/internal/status"
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

// Breaker is a partner endpoint's circuit breaker as the relay decides
// it. The methods are its transitions; the store persists it as a
// partner_endpoints document (see persist.go).
type Breaker struct {
	// State is a status.Breaker… state.
	State               string
	ConsecutiveFailures int
	OpenedAt            *time.Time
	// OpenUntil is when an open breaker lets a delivery probe again.
	OpenUntil     *time.Time
	LastError     string
	LastSuccessAt *time.Time
	LastFailureAt *time.Time
	// FailingSince is when the current run of failed deliveries began
	// (any failure counts, a refusal too; a throttle does not); nil after
	// a success. The auto-disable reads it. FailingWarned is the highest
	// share of the disable period (50, 90) reported for the run.
	FailingSince  *time.Time
	FailingWarned int

	updatedAt time.Time
}

// allow reports whether a delivery may go at now; when not, it returns
// when the breaker lets deliveries try again. An open breaker whose
// cooldown is over turns half-open (changed) and lets one go.
func (b *Breaker) allow(now time.Time) (ok bool, until time.Time, changed bool) {
	if b.State != status.BreakerOpen {
		return true, time.Time{}, false
	}
	if b.OpenUntil != nil && now.Before(*b.OpenUntil) {
		return false, *b.OpenUntil, false
	}
	b.State = status.BreakerHalfOpen
	return true, time.Time{}, true
}

// record counts a delivery's outcome at now. Only failures that say the
// endpoint is unhealthy (retryable ones: 5xx, 408, 429, timeouts) count; a
// 4xx refusal came from a working endpoint. A half-open breaker that fails
// again, or failures reaching cfg.Failures, open it for cfg.Cooldown.
//
// It returns the transition it made, if it opened the breaker (again) or
// closed an open or half-open one: nil otherwise.
func (b *Breaker) record(err error, now time.Time, cfg BreakerConfig) *transition {
	prevState, prevOpened := b.State, b.OpenedAt
	switch {
	case err == nil:
		b.FailingSince, b.FailingWarned = nil, 0
	case b.FailingSince == nil:
		since := now.UTC().Truncate(time.Millisecond) // as the store keeps it: one event id
		b.FailingSince = &since
	}
	if err == nil || !fault.IsRetryable(err) {
		if err == nil {
			b.LastSuccessAt = &now
		}
		b.State, b.ConsecutiveFailures, b.OpenedAt, b.OpenUntil = status.BreakerClosed, 0, nil, nil
		if prevState == status.BreakerOpen || prevState == status.BreakerHalfOpen {
			return &transition{prev: prevOpened, after: *b, at: now}
		}
		return nil
	}
	b.ConsecutiveFailures++
	b.LastError, b.LastFailureAt = fault.Text(err), &now
	if b.State == status.BreakerHalfOpen || (b.State != status.BreakerOpen && b.ConsecutiveFailures >= cfg.Failures) {
		// Milliseconds, as the store keeps it: the opening is the
		// compare-and-set guard of the breaker's saves (SaveBreaker).
		opened := now.UTC().Truncate(time.Millisecond)
		until := opened.Add(cfg.Cooldown)
		b.State, b.OpenedAt, b.OpenUntil = status.BreakerOpen, &opened, &until
		return &transition{opened: true, prev: prevOpened, after: *b, at: now}
	}
	return nil
}

// transition is a breaker's change of opening: opened (or opened again
// after a failed probe), or closed. The relay commits it to the store
// guarded by prev, and reports it only when its commit is the one that
// changed the stored breaker, so racing relays report it once.
type transition struct {
	opened bool
	// prev is the opening the transition replaces or ends (nil: none).
	prev *time.Time
	// after is the breaker as the transition left it.
	after Breaker
	at    time.Time
}

// breakers is the breaker state of the partners of one batch: loaded from
// the store before delivering, saved once after.
type breakers struct {
	cfg     BreakerConfig
	mu      sync.Mutex
	brk     map[string]*Breaker
	changed map[string]bool
}

func newBreakers(cfg BreakerConfig, loaded map[string]Breaker) *breakers {
	b := &breakers{cfg: cfg, brk: map[string]*Breaker{}, changed: map[string]bool{}}
	for id, br := range loaded {
		b.brk[id] = &br
	}
	return b
}

// get is partner id's breaker; a partner never seen has a closed one.
func (b *breakers) get(id string) *Breaker {
	br, ok := b.brk[id]
	if !ok {
		br = &Breaker{State: status.BreakerClosed}
		b.brk[id] = br
	}
	return br
}

// allow reports whether a delivery to partner id may go now; when not, it
// returns when the breaker lets deliveries try again.
func (b *breakers) allow(id string, now time.Time) (bool, time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	ok, until, changed := b.get(id).allow(now)
	if changed {
		b.changed[id] = true
	}
	return ok, until
}

// record counts a delivery's outcome on partner id's breaker and returns
// the transition it made, if any.
func (b *breakers) record(id string, err error, now time.Time) *transition {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.changed[id] = true
	return b.get(id).record(err, now, b.cfg)
}

// adopt replaces partner id's breaker with the stored one, loaded after
// another relay moved it, unless this relay moved it again since
// (its opening is no longer opened).
func (b *breakers) adopt(id string, opened *time.Time, stored Breaker) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if sameTime(b.get(id).OpenedAt, opened) {
		b.brk[id] = &stored
	}
}

// sameTime reports whether a and b are both nil or the same instant.
func sameTime(a, b *time.Time) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Equal(*b)
}

// dirty returns the breakers that changed in this batch, by partner id.
func (b *breakers) dirty() map[string]Breaker {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make(map[string]Breaker, len(b.changed))
	for id := range b.changed {
		out[id] = *b.brk[id]
	}
	return out
}
