package fanout

import (
	"encoding/json"
	"strings"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/subscribe"
)

// recipients are the ids of subs (in their order) whose subscriptions
// select env, less those the loop guard keeps it from (Guarded).
func recipients(subs []subscriber, env events.Envelope) []string {
	var (
		to    []string
		doc   lazyDocument
		about *operational
	)
	for _, s := range subs {
		for _, m := range s.matchers {
			if !m.MatchesType(env.EventType) {
				continue
			}
			if about == nil {
				about = operationalOf(env)
				if about.toNobody {
					return nil
				}
			}
			if about.partnerID == s.id {
				break
			}
			if !doc.matches(m, env) {
				continue
			}
			to = append(to, s.id)
			break
		}
	}
	return to
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
