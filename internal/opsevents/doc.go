// Package opsevents emits the operational events of partner delivery
// (partner.paused, partner.resumed, partner.breaker.opened,
// partner.breaker.closed, partner.throttled, delivery.dead_lettered,
// partner.failing, partner.disabled, partner.enabled): what
// an operator alarms on, on the operations topic keyed by partnerId.
//
// An operational event goes the way of every event (internal/emit): stored
// in the history first, then published; one the publish missed is
// published later by the retry-sweeper. Its id is derived from what it
// reports (the *ID functions), so a relay or API call that runs again
// stores the same event, not a twin. Emitting is a side effect of a state
// change that is already durable, so a failure is logged and returned but
// must never fail the delivery or the request that caused it.
package opsevents
