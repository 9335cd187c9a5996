package outbox

import (
	"context"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/deadline"
	"github.com/streamops/streamops/internal/opsevents"
	"github.com/streamops/streamops/internal/store"
)

// The relay's side of the partner gate (store/gate.go holds the shared
// state): before each send to a partner with a maxInFlight or a
// rateLimit it takes an in-flight lease and a send slot, waiting for
// them up to GateWait; beyond that the entry is deferred without using
// an attempt. A partner with neither costs no store command.

// gateRetry is how often a send waiting for an in-flight place asks again.
const gateRetry = 100 * time.Millisecond

// slotLead is how far ahead of now an idle partner's send slot is set:
// farther than the reservation's own store round trip, so the send at
// that slot goes out on time and the next one, a full gap later, is not
// closer to it than the rate limit allows.
const slotLead = 100 * time.Millisecond

// leaseMargin is how long an in-flight lease outlives the longest send it
// covers, so it is not taken from a send still running.
const leaseMargin = 5 * time.Second

// holds is what this relay knows of its partners' holds: loaded with each
// batch's breakers and set by the throttles it sees, so the rest of a
// batch is deferred at once.
type holds struct {
	mu    sync.Mutex
	until map[string]time.Time
}

// note records that partner id is held until until (a later hold wins).
func (h *holds) note(id string, until time.Time) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.until == nil {
		h.until = map[string]time.Time{}
	}
	if until.After(h.until[id]) {
		h.until[id] = until
	}
}

// held reports whether partner id is held at now, and until when.
func (h *holds) held(id string, now time.Time) (time.Time, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	until := h.until[id]
	return until, until.After(now)
}

// admission is what the gate decided for one send: go (release gives
// its in-flight place back after it) or wait until deferTill.
type admission struct {
	release   func()
	deferTill time.Time
}

// admit passes one send to p through p's gate: an in-flight lease when p
// has a maxInFlight (asked again every gateRetry for up to GateWait),
// then a send slot when p has a rateLimit, waiting for the slot when it
// is at most GateWait away. A send that cannot go within GateWait, or
// finds p held, is deferred. A store error defers it by GateWait too:
// the gate is never skipped.
func (r *Relay) admit(ctx context.Context, p Partner) admission {
	noop := func() {}
	if p.MaxInFlight == nil && p.RateLimit == nil {
		return admission{release: noop}
	}
	start := r.cfg.Now()
	release := noop
	if p.MaxInFlight != nil {
		token := uuid.NewString()
		until := start.Add(r.cfg.GateWait + r.cfg.PartnerDeliverer.timeout() + leaseMargin)
		for {
			now := r.cfg.Now()
			ok, err := r.cfg.Store.AcquireInFlight(ctx, p.ID, *p.MaxInFlight, token, now, until)
			if err != nil {
				r.cfg.Logger.WarnContext(ctx, "partner gate unavailable", "target", p.ID, "error", err)
				return admission{deferTill: now.Add(r.cfg.GateWait)}
			}
			if ok {
				break
			}
			if now.Sub(start) >= r.cfg.GateWait || !deadline.Sleep(ctx, gateRetry) {
				return admission{deferTill: now.Add(gateRetry)}
			}
		}
		release = func() {
			if err := r.cfg.Store.ReleaseInFlight(context.WithoutCancel(ctx), p.ID, token); err != nil {
				r.cfg.Logger.WarnContext(ctx, "in-flight lease not released; it expires", "target", p.ID, "error", err)
			}
		}
	}
	if p.RateLimit != nil {
		now := r.cfg.Now()
		slot, err := r.cfg.Store.ReserveSendSlot(ctx, p.ID, now.Add(slotLead), p.sendInterval(), r.cfg.GateWait)
		switch {
		case err != nil:
			release()
			r.cfg.Logger.WarnContext(ctx, "partner gate unavailable", "target", p.ID, "error", err)
			return admission{deferTill: now.Add(r.cfg.GateWait)}
		case slot.HoldUntil != nil:
			release()
			r.holds.note(p.ID, *slot.HoldUntil)
			return admission{deferTill: *slot.HoldUntil}
		case !slot.Reserved:
			release()
			return admission{deferTill: slot.At}
		}
		if !deadline.Sleep(ctx, slot.At.Sub(r.cfg.Now())) {
			release()
			return admission{deferTill: slot.At}
		}
	}
	return admission{release: release}
}

// hold records that partner p asked to be held until until (attempt a's
// answer): in the store, shared by every relay, and in this relay's
// holds. A hold that starts (none was in force) is announced once, as a
// partner.throttled event.
func (r *Relay) hold(ctx context.Context, p Partner, e Entry, a Attempt, until time.Time) {
	r.holds.note(p.ID, until)
	started, err := r.cfg.Store.HoldPartner(ctx, p.ID, store.Hold{Until: until, StatusCode: a.StatusCode, RetryAfter: a.RetryAfter}, r.cfg.Now())
	if err != nil {
		// The entry still waits for the hold; other relays learn of it
		// from their own throttles.
		r.cfg.Logger.WarnContext(ctx, "partner hold not stored", "target", p.ID, "error", err)
		return
	}
	if !started {
		return
	}
	r.cfg.Logger.WarnContext(ctx, "partner throttled", "target", p.ID, "outboxId", e.ID,
		"statusCode", a.StatusCode, "retryAfter", a.RetryAfter, "holdUntil", until)
	// Emit logs its failure; the hold is stored either way.
	_ = r.cfg.Operations.Emit(ctx, events.PartnerThrottled, p.ID, events.PartnerThrottledPayload{
		PartnerID: p.ID, OutboxID: e.ID, StatusCode: a.StatusCode, RetryAfter: a.RetryAfter, HoldUntil: events.At(until),
	}, opsevents.ThrottledID(p.ID, until))
}
