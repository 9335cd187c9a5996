package outbox

import "context"

// pauseControl reads, right before each send, whether an operator paused
// the partner, so a pause the API has answered stops every send that had
// not started. A paused partner's entries are deferred as they were due,
// before an exhausted one is dead-lettered: a pause never moves an entry
// towards dead. Once one send found the partner paused, the rest of the
// group is deferred without asking again.
var pauseControl = control{name: "pause", before: func(ctx context.Context, s *partnerSends, o *outcome) verdict {
	if s.paused = s.paused || s.r.paused(ctx, s.p.ID); !s.paused {
		return goOn
	}
	due := o.entry.claim.due
	if due.IsZero() {
		due = s.r.cfg.Now()
	}
	return verdict{deferTill: due}
}}

// paused reads whether an operator paused partner id. When the store
// cannot say, the partner counts as paused: an entry waits rather than go
// out against an operator's hold.
func (r *Relay) paused(ctx context.Context, id string) bool {
	paused, err := r.cfg.Store.PartnerPaused(ctx, id)
	if err != nil {
		r.cfg.Logger.ErrorContext(ctx, "cannot read whether a partner is paused: its deliveries wait", "target", id, "error", err)
		return true
	}
	return paused
}
