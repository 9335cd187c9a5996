package outbox

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/streamops/streamops/internal/deadline"
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

// gateControl passes each send through the partner's gate (admit): it
// waits for an in-flight place and a send slot, up to GateWait, and is
// deferred beyond it; the place is given back once the send ended. A
// throttle another send met while this one waited defers it too.
var gateControl = control{
	name:  "gate",
	waits: true,
	before: func(ctx context.Context, s *partnerSends, o *outcome) verdict {
		adm := s.r.admit(ctx, s.p)
		if !adm.deferTill.IsZero() {
			return verdict{deferTill: adm.deferTill}
		}
		if until, held := s.r.holds.held(s.p.ID, s.r.cfg.Now()); held { // a throttle while it waited
			adm.release()
			return verdict{deferTill: until}
		}
		o.release = adm.release
		return goOn
	},
	after: func(_ context.Context, _ *partnerSends, o *outcome) {
		o.release()
	},
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
