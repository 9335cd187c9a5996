package outbox

import (
	"context"
	"fmt"
	"time"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/fault"
	"github.com/streamops/streamops/internal/opsevents"
)

// PartnerDisabler disables a partner at run time (the partner registry
// implements it): the relay's auto-disable calls it for a partner whose
// every delivery has failed for Config.DisableAfter. Once disabled, the
// partner's Directory entry says so (Partner.Disabled, DisabledReason)
// until an operator enables it.
type PartnerDisabler interface {
	// DisablePartner disables partnerID at at, for reason; changed is
	// false when it was disabled already (another relay came first), so
	// partner.disabled is emitted once.
	DisablePartner(ctx context.Context, partnerID, reason string, at time.Time) (changed bool, err error)
}

// DefaultDisableAfter is how long every delivery to a partner may fail
// before it is disabled, by default (env STREAMOPS_PARTNER_DISABLE_AFTER).
const DefaultDisableAfter = 5 * 24 * time.Hour

// disabledBy is the partner.disabled "by" of the auto-disable.
const disabledBy = "outbox-relay"

// failingThresholds are the shares of DisableAfter, highest first, at
// which a failing partner is warned about (partner.failing), once each
// per failing run.
var failingThresholds = []int{90, 50}

// autoDisableControl acts after each failed attempt (a throttle is not
// one): once the partner's run of failures (Breaker.FailingSince, kept
// on its endpoint) has lasted 50 %, then 90 % of DisableAfter it emits
// partner.failing, each once per run (FailingWarned, stored with the
// breaker, so a restart does not repeat it; when a run is first seen past
// both, only the higher one); once it has lasted DisableAfter it disables
// the partner through Config.Disabler and emits partner.disabled. The
// rest of the group then waits as a disabled partner's does
// (disabledControl); sends already in flight end as they end. The run
// ends with the disable, so an enabled partner has a whole period again.
// Without a Disabler it does nothing.
var autoDisableControl = control{name: "autodisable", after: func(ctx context.Context, s *partnerSends, o *outcome) {
	r := s.r
	if r.cfg.Disabler == nil || !o.attempted || o.err == nil || !o.holdTill.IsZero() {
		return
	}
	if s.disabled.Load() { // in flight when the partner was disabled
		s.brk.endFailing(s.p.ID)
		return
	}
	since, ok := s.brk.failing(s.p.ID)
	if !ok {
		return
	}
	lastErr := fault.Text(o.err)
	period := r.cfg.DisableAfter
	failed := o.at.Sub(since)
	if failed >= period {
		r.autoDisable(ctx, s, since, lastErr, o.at)
		return
	}
	for _, pct := range failingThresholds {
		if failed < period*time.Duration(pct)/100 {
			continue
		}
		if s.brk.warn(s.p.ID, pct) {
			// Emit logs its failure; the warning is recorded either way.
			_ = r.cfg.Operations.Emit(ctx, events.PartnerFailing, s.p.ID, events.PartnerFailingPayload{
				PartnerID: s.p.ID, FailingSince: events.At(since), Percent: pct, DisableAfterMs: period.Milliseconds(),
				DisableAt: events.At(since.Add(period)), LastError: lastErr, At: events.At(o.at),
			}, opsevents.FailingID(s.p.ID, since, pct))
			r.cfg.Logger.WarnContext(ctx, "partner failing", "target", s.p.ID, "failingSince", since, "percent", pct, "error", lastErr)
		}
		return
	}
}}

// autoDisable disables s's partner, failing since since, at at: once per
// group; an error leaves it enabled (the next failure tries again).
func (r *Relay) autoDisable(ctx context.Context, s *partnerSends, since time.Time, lastErr string, at time.Time) {
	if !s.disabled.CompareAndSwap(false, true) {
		return
	}
	period := r.cfg.DisableAfter
	reason := fmt.Sprintf("every delivery failed for %s (since %s); last error: %s", period, events.At(since), lastErr)
	changed, err := r.cfg.Disabler.DisablePartner(ctx, s.p.ID, reason, at)
	if err != nil {
		s.disabled.Store(false)
		r.cfg.Logger.ErrorContext(ctx, "partner not disabled: its deliveries go on", "target", s.p.ID, "error", err)
		return
	}
	s.brk.endFailing(s.p.ID)
	if !changed {
		return
	}
	r.cfg.Logger.WarnContext(ctx, "partner disabled", "target", s.p.ID, "failingSince", since, "reason", reason)
	// Emit logs its failure; the partner is disabled either way.
	_ = r.cfg.Operations.Emit(ctx, events.PartnerDisabled, s.p.ID, events.PartnerDisabledPayload{
		PartnerID: s.p.ID, Reason: reason, By: disabledBy, FailingSince: events.AtPtr(&since), LastError: lastErr,
		DisableAfterMs: period.Milliseconds(), DisabledAt: events.At(at),
	}, opsevents.DisabledID(s.p.ID, at))
}

// failing is when partner id's current run of failures began; ok is
// false when its last delivery succeeded.
func (b *breakers) failing(id string) (since time.Time, ok bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	br := b.get(id)
	if br.FailingSince == nil {
		return time.Time{}, false
	}
	return *br.FailingSince, true
}

// warn records that partner id's run was reported at pct, and reports
// whether that is news (no report at pct or above yet).
func (b *breakers) warn(id string, pct int) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	br := b.get(id)
	if br.FailingWarned >= pct {
		return false
	}
	br.FailingWarned = pct
	b.changed[id] = true
	return true
}

// endFailing ends partner id's run of failures (it is disabled).
func (b *breakers) endFailing(id string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	br := b.get(id)
	br.FailingSince, br.FailingWarned = nil, 0
	b.changed[id] = true
}
