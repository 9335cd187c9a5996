package outbox

import (
	"context"
	"sync"
	"time"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/opsevents"
	"github.com/streamops/streamops/internal/store"
)

// holdControl defers the sends to a partner held by its own Retry-After
// (a 429 or 503 this relay or another one saw) until the hold ends, and
// holds the partner when an attempt was a throttle (o.holdTill).
var holdControl = control{
	name: "hold",
	before: func(_ context.Context, s *partnerSends, _ *outcome) verdict {
		if until, held := s.r.holds.held(s.p.ID, s.r.cfg.Now()); held {
			return verdict{deferTill: until}
		}
		return goOn
	},
	after: func(ctx context.Context, s *partnerSends, o *outcome) {
		if o.attempted && !o.holdTill.IsZero() {
			s.r.hold(ctx, s.p, o.entry, *o.attempt, o.holdTill)
		}
	},
}

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
