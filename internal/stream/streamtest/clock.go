package streamtest

import (
	"sync"
	"time"
)

// Clock is a processor's clock under test: it starts at
// 2026-01-04T01:10:00Z and moves step with every reading, so durations are
// positive and reproducible; Advance moves it further.
type Clock struct {
	mu   sync.Mutex
	t    time.Time
	step time.Duration
}

// NewClock starts a clock that moves step per reading.
func NewClock(step time.Duration) *Clock {
	return &Clock{t: time.Date(2026, 1, 4, 1, 10, 0, 0, time.UTC), step: step}
}

// Now moves the clock one step and reads it.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(c.step)
	return c.t
}

// Advance moves the clock forward by d.
func (c *Clock) Advance(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }
