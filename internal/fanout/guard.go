package fanout

import (
	"encoding/json"
	"strings"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/subscribe"
)

// recipients are the ids of subs (in their order) whose subscriptions
// select env, less those the loop guard keeps it from.
func recipients(subs []subscriber, env events.Envelope) []string {
	var (
		to []string
		ev = event{env: env}
	)
	for _, s := range subs {
		if v := ev.verdict(s.id, s.matchers); v.Match {
			to = append(to, s.id)
		}
	}
	return to
}

// Why a partner's subscriptions do not select an event (Verdict.Reason).
const (
	// ReasonEventType: no subscription names the event's type.
	ReasonEventType = "eventType"
	// ReasonFilter: the subscriptions naming its type have filters it
	// does not match.
	ReasonFilter = "filter"
	// ReasonLoopGuard: the loop guard keeps it from the partner (an
	// operational event about the partner itself, or about a delivery of
	// an operational event).
	ReasonLoopGuard = "loopGuard"
)

// Verdict is what a partner's subscriptions make of one event.
type Verdict struct {
	// Match says the event is delivered to the partner.
	Match bool
	// Subscription is the index of the first subscription that selects
	// it, when Match.
	Subscription int
	// Reason says why not (Reason*), when not Match.
	Reason string
}

// Explain is what fan-out decides for env and partner partnerID with the
// compiled subscriptions matchers, and why: the subscription test route
// shows exactly what the store's fan-out would do.
func Explain(partnerID string, matchers []*subscribe.Matcher, env events.Envelope) Verdict {
	ev := event{env: env}
	return ev.verdict(partnerID, matchers)
}

// event is an event being fanned out, with what the partners' matching
// reads from it computed once for all of them.
type event struct {
	env   events.Envelope
	about *operational
	doc   lazyDocument
}

// verdict decides for one partner.
func (e *event) verdict(partnerID string, matchers []*subscribe.Matcher) Verdict {
	reason := ReasonEventType
	for i, m := range matchers {
		if !m.MatchesType(e.env.EventType) {
			continue
		}
		if e.about == nil {
			e.about = operationalOf(e.env)
		}
		if e.about.toNobody || e.about.partnerID == partnerID {
			return Verdict{Reason: ReasonLoopGuard}
		}
		if e.doc.matches(m, e.env) {
			return Verdict{Match: true, Subscription: i}
		}
		reason = ReasonFilter
	}
	return Verdict{Reason: reason}
}

// operational is what the loop guard reads from an event: the partner an
// operational event is about, and whether it may go to no one.
type operational struct {
	partnerID string
	toNobody  bool
}

// IsOperational says whether t is an operational event type: one of the
// operations topic, or a partner.* or delivery.* type a later version
// adds.
func IsOperational(t events.Type) bool {
	return t.Topic() == events.TopicOperations || strings.HasPrefix(string(t), "partner.") || strings.HasPrefix(string(t), "delivery.")
}

// operationalOf applies the loop guard to env. Two rules keep
// subscriptions to operational events from feeding themselves:
//
//   - an operational event about partner P (payload.partnerId) never goes
//     to P: a dead endpoint subscribed to delivery.* would otherwise get
//     a dead letter for each dead letter, forever;
//   - a delivery.dead_lettered about an entry that carried an operational
//     event (payload.eventType operational) goes to no one: operational
//     events travel one hop, so two dead endpoints subscribed to each
//     other's dead letters do not feed each other either.
func operationalOf(env events.Envelope) *operational {
	if !IsOperational(env.EventType) {
		return &operational{}
	}
	var p struct {
		PartnerID string      `json:"partnerId"`
		EventType events.Type `json:"eventType"`
	}
	_ = json.Unmarshal(env.Payload, &p) // a payload without them names no one
	return &operational{
		partnerID: p.PartnerID,
		toNobody:  env.EventType == events.DeliveryDeadLettered && IsOperational(p.EventType),
	}
}

// lazyDocument is an event's document for filters, converted at the first
// filter that needs it and once for all partners.
type lazyDocument struct {
	done bool
	doc  subscribe.Document
	err  error
}

// matches is m.MatchDocument on env's document; an event that cannot be
// read as a document matches no filter.
func (l *lazyDocument) matches(m *subscribe.Matcher, env events.Envelope) bool {
	if !m.HasFilter() {
		return true
	}
	if !l.done {
		l.doc, l.err = subscribe.DocumentOf(env)
		l.done = true
	}
	return l.err == nil && m.MatchDocument(env.EventType, l.doc)
}
