package outbox

import "context"

// breakerControl defers the sends to a partner whose circuit breaker is
// open until it lets them try again, and counts each attempt's result on
// the breaker (a throttle is a hold, not a result), committing and
// reporting the transition it makes.
var breakerControl = control{
	name: "breaker",
	before: func(_ context.Context, s *partnerSends, _ *outcome) verdict {
		if ok, until := s.brk.allow(s.p.ID, s.r.cfg.Now()); !ok {
			return verdict{deferTill: until}
		}
		return goOn
	},
	after: func(ctx context.Context, s *partnerSends, o *outcome) {
		if !o.attempted || !o.holdTill.IsZero() {
			return
		}
		if tr := s.brk.record(s.p.ID, o.err, o.at); tr != nil {
			s.r.commitTransition(ctx, s.p.ID, tr, s.brk)
		}
	},
}
