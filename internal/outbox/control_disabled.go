package outbox

import "context"

// disabledControl stops every send to a disabled partner (Partner.Disabled,
// or disabled by the auto-disable during this group): its entries wait,
// deferred by DisabledRecheck at a time, unsent and without using an
// attempt, until it is enabled again.
var disabledControl = control{name: "disabled", before: func(_ context.Context, s *partnerSends, _ *outcome) verdict {
	if s.p.Disabled || s.disabled.Load() {
		return verdict{deferTill: s.r.cfg.Now().Add(s.r.cfg.DisabledRecheck)}
	}
	return goOn
}}
