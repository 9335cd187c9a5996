package outbox

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// The send path to a partner is a chain of partner controls, one per file
// (control_*.go), each with its own test: before each send, every control
// in partnerControls' order decides whether it goes on, waits (deferred,
// no attempt used) or fails without a request; once the send ended, the
// controls that let it go act on it in the reverse order (give back a
// slot, count the result on the breaker, hold the partner). A new control
// is one file and one line in partnerControls.

// partnerControls are the controls on every send to a partner, in the
// order they decide. The first that may wait (control.waits) and the ones
// after it run beside the partner's other sends (PartnerConcurrency of
// them at once); those before it decide one send at a time, in claim
// order, right before the send takes its place.
var partnerControls = chain{
	disabledControl,    // an operator's or the auto-disable's stop: defer by DisabledRecheck
	autoDisableControl, // after a failure: warn, then disable a partner failing for DisableAfter
	pauseControl,       // an operator's pause: defer as due
	exhaustedControl,   // claimed beyond its attempts: fail
	holdControl,        // the partner's Retry-After hold: defer; set one on a throttle
	breakerControl,     // an open breaker: defer; count each result
	gateControl,        // in-flight place and rate slot (waits up to GateWait)
}

// control is one partner control on the send path.
type control struct {
	// name says what it controls (tests check the chain's order by it).
	name string
	// waits says before may wait (for a slot, a place): it and every
	// control after it run beside the partner's other sends.
	waits bool
	// before decides whether the send of o goes on; nil: it always does.
	before func(ctx context.Context, s *partnerSends, o *outcome) verdict
	// after acts once the send of o ended (o.attempted) or a later control
	// stopped it; called only when before let it go, in the reverse of the
	// chain's order. nil: nothing.
	after func(ctx context.Context, s *partnerSends, o *outcome)
}

// verdict is what a control decides before a send: go on (the zero
// verdict), wait until deferTill without using an attempt, or fail the
// attempt with err without a request.
type verdict struct {
	deferTill time.Time
	err       error
}

// goOn is the verdict that lets a send go on.
var goOn = verdict{}

// stops reports whether v stops the send.
func (v verdict) stops() bool { return !v.deferTill.IsZero() || v.err != nil }

// chain is an ordered list of controls (partnerControls; tests make
// their own).
type chain []control

// waitsFrom is the index of the first control of c that may wait: the
// controls from it on run beside the partner's other sends.
func (c chain) waitsFrom() int {
	for i, ctl := range c {
		if ctl.waits {
			return i
		}
	}
	return len(c)
}

// partnerSends is one partner's share of a claimed batch on its way
// through the controls: what every control of the chain may read, and the
// state the controls keep for the group.
type partnerSends struct {
	r     *Relay
	p     Partner
	brk   *breakers
	chain chain
	sem   chan struct{}
	wg    sync.WaitGroup
	// paused is the pause control's: once a send found the partner
	// paused, the rest of the group is deferred without asking again.
	paused bool
	// disabled is set when the auto-disable control disabled the partner
	// during this group: the rest is deferred as for a disabled partner.
	disabled atomic.Bool
}

// deliverToPartner sends one partner's entries through the controls, a
// few at a time (PartnerConcurrency): each send takes its place, the
// controls before the first waiting one decide, then the rest of the
// chain, the send and the controls' after run beside the other sends.
func (r *Relay) deliverToPartner(ctx context.Context, p Partner, idx []int, outcomes []outcome, brk *breakers) {
	s := &partnerSends{r: r, p: p, brk: brk, chain: partnerControls, sem: make(chan struct{}, r.cfg.PartnerConcurrency)}
	s.run(ctx, idx, outcomes)
}

// run sends the outcomes idx of outcomes through s's chain.
func (s *partnerSends) run(ctx context.Context, idx []int, outcomes []outcome) {
	waitsFrom := s.chain.waitsFrom()
	for _, i := range idx {
		o := &outcomes[i]
		s.sem <- struct{}{}
		if !s.decide(ctx, o, 0, waitsFrom) {
			<-s.sem
			continue
		}
		s.wg.Go(func() {
			defer func() { <-s.sem }()
			s.send(o.entry.Context(ctx), o)
		})
	}
	s.wg.Wait()
}

// decide runs the befores of s.chain[from:to] on o; when one
// stops it, o records why and the controls before it (from the chain's
// start) act on the stopped send. It reports whether o goes on.
func (s *partnerSends) decide(ctx context.Context, o *outcome, from, to int) bool {
	for i := from; i < to; i++ {
		c := s.chain[i]
		if c.before == nil {
			continue
		}
		if v := c.before(ctx, s, o); v.stops() {
			o.deferTill, o.err = v.deferTill, v.err
			s.unwind(ctx, o, i)
			return false
		}
	}
	return true
}

// unwind runs the afters of the first n controls, last first.
func (s *partnerSends) unwind(ctx context.Context, o *outcome, n int) {
	for i := n - 1; i >= 0; i-- {
		if a := s.chain[i].after; a != nil {
			a(ctx, s, o)
		}
	}
}

// send runs the waiting controls on o, then sends it and lets every
// control act on the result. A 429 or 503 with Retry-After is a throttle
// (throttleHold): o.holdTill is set and the controls treat it as a hold,
// not a failure.
func (s *partnerSends) send(ctx context.Context, o *outcome) {
	if !s.decide(ctx, o, s.chain.waitsFrom(), len(s.chain)) {
		return
	}
	r := s.r
	start := r.cfg.Now()
	a := r.cfg.PartnerDeliverer.Send(ctx, s.p, o.entry)
	a.At = start
	o.err, o.attempted, o.attempt = delivered(a.Err), true, &a
	o.at = r.cfg.Now()
	if hold, ok := throttleHold(a, o.at, o.entry.ThrottledSince, r.cfg.MaxHold); ok {
		o.holdTill = o.at.Add(hold).Truncate(time.Millisecond) // as stored: one event id
	}
	s.unwind(ctx, o, len(s.chain))
	r.cfg.Logger.InfoContext(ctx, "partner delivery attempt", "outboxId", o.entry.ID, "target", s.p.ID,
		"attempt", o.entry.Attempts, "statusCode", a.StatusCode, "durationMs", a.Duration.Milliseconds(), "error", a.Err)
}
