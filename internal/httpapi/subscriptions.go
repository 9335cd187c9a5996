package httpapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/fanout"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/submit"
	"github.com/streamops/streamops/internal/subscribe"
)

// DefaultSubscriptionTestLast is how many of the latest stored events a
// subscription test evaluates when the body names neither an event nor
// a number.
const DefaultSubscriptionTestLast = 100

// SubscriptionTestRequest is the body of POST
// /api/partners/{partnerId}/subscriptions/test: the subscription to test
// (none: the partner's own) against one event or the latest stored ones.
type SubscriptionTestRequest struct {
	// Subscription is tested instead of the partner's subscriptions.
	Subscription *subscribe.Subscription `json:"subscription,omitempty"`
	// Event is an envelope to test; with it, Last must be absent.
	Event json.RawMessage `json:"event,omitempty"`
	// Last is how many of the latest stored events to test, newest first:
	// 1 to store.MaxLatestEvents, default DefaultSubscriptionTestLast.
	Last *int `json:"last,omitempty"`
}

// SubscriptionTestResult answers a subscription test: the subscriptions
// evaluated and, for each event, whether fan-out would deliver it to the
// partner.
type SubscriptionTestResult struct {
	PartnerID     string                   `json:"partnerId"`
	Subscriptions []subscribe.Subscription `json:"subscriptions"`
	Evaluated     int                      `json:"evaluated"`
	Matched       []SubscriptionTestEvent  `json:"matched"`
	Unmatched     []SubscriptionTestEvent  `json:"unmatched"`
}

// SubscriptionTestEvent is one event of a subscription test: Subscription
// is the index of the first subscription that selects it (matched), Reason
// why none does (unmatched: fanout.Reason*, or "undecodable" for a stored
// event that cannot be read back).
type SubscriptionTestEvent struct {
	EventID      string      `json:"eventId"`
	EventType    events.Type `json:"eventType"`
	Timestamp    events.Time `json:"timestamp"`
	Subscription *int        `json:"subscription,omitempty"`
	Reason       string      `json:"reason,omitempty"`
}

// reasonUndecodable is a stored event a subscription test could not read.
const reasonUndecodable = "undecodable"

// subscriptionRoutes registers the subscription test.
func (a *api) subscriptionRoutes(mux *http.ServeMux, admin func(handlerFunc) http.Handler) {
	mux.Handle("POST /api/partners/{partnerId}/subscriptions/test", admin(a.testSubscriptions))
}

// testSubscriptions answers POST /api/partners/{partnerId}/subscriptions/test
// with what the store's fan-out would do (fanout.Explain, the loop guard
// included): a subscription that does not compile is a 400 naming its
// field, a partner the directory does not hold (when the body brings no
// subscription) a 404.
func (a *api) testSubscriptions(w http.ResponseWriter, r *http.Request, _ Principal) {
	id := r.PathValue("partnerId")
	var req SubscriptionTestRequest
	if err := decodeOptionalBody(w, r, &req); err != nil {
		writeError(w, r, a.log, err)
		return
	}
	subs, err := a.partnerSubscriptions(r, id, req.Subscription)
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	matchers := make([]*subscribe.Matcher, len(subs))
	for i, s := range subs {
		if matchers[i], err = subscribe.Compile(s); err != nil {
			field := "subscription"
			if req.Subscription == nil {
				field = fmt.Sprintf("subscriptions[%d]", i) // the partner's own, as stored
			}
			writeError(w, r, a.log, subscriptionError(field, err))
			return
		}
	}
	envs, undecodable, err := a.eventsToTest(r, req)
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	res := SubscriptionTestResult{PartnerID: id, Subscriptions: subs, Evaluated: len(envs) + len(undecodable),
		Matched: []SubscriptionTestEvent{}, Unmatched: undecodable}
	if res.Subscriptions == nil {
		res.Subscriptions = []subscribe.Subscription{}
	}
	for _, env := range envs {
		v := fanout.Explain(id, matchers, env)
		ev := SubscriptionTestEvent{EventID: env.EventID, EventType: env.EventType, Timestamp: env.Timestamp}
		if v.Match {
			ev.Subscription = &v.Subscription
			res.Matched = append(res.Matched, ev)
		} else {
			ev.Reason = v.Reason
			res.Unmatched = append(res.Unmatched, ev)
		}
	}
	writeJSON(w, http.StatusOK, res)
}

// partnerSubscriptions is given, or else the partner's own subscriptions
// as fan-out reads them; a partner the directory does not hold is
// errPartnerNotFound.
func (a *api) partnerSubscriptions(r *http.Request, id string, given *subscribe.Subscription) ([]subscribe.Subscription, error) {
	if given != nil {
		return []subscribe.Subscription{*given}, nil
	}
	if a.cfg.Subscriptions == nil {
		return nil, fmt.Errorf("partner %q: %w", id, errPartnerNotFound)
	}
	all, err := a.cfg.Subscriptions.Subscriptions(r.Context())
	if err != nil {
		return nil, err
	}
	subs, ok := all[id]
	if !ok {
		return nil, fmt.Errorf("partner %q: %w", id, errPartnerNotFound)
	}
	return subs, nil
}

// eventsToTest is the request's event, or its latest stored events
// newest first (those that cannot be read back listed apart).
func (a *api) eventsToTest(r *http.Request, req SubscriptionTestRequest) ([]events.Envelope, []SubscriptionTestEvent, error) {
	if len(req.Event) > 0 {
		if req.Last != nil {
			return nil, nil, &submit.ValidationError{Field: "last", Reason: "give either an event or a number of latest events, not both"}
		}
		env, err := events.Consumed.Decode(req.Event)
		if err != nil {
			return nil, nil, &submit.ValidationError{Field: "event", Reason: "not an event envelope: " + err.Error(), Err: err}
		}
		return []events.Envelope{env}, nil, nil
	}
	last := DefaultSubscriptionTestLast
	if req.Last != nil {
		last = *req.Last
	}
	if last < 1 || last > store.MaxLatestEvents {
		return nil, nil, &submit.ValidationError{Field: "last", Reason: fmt.Sprintf("%d is not between 1 and %d", last, store.MaxLatestEvents)}
	}
	docs, err := a.cfg.Store.LatestEvents(r.Context(), last)
	if err != nil {
		return nil, nil, err
	}
	envs := make([]events.Envelope, 0, len(docs))
	undecodable := []SubscriptionTestEvent{}
	for _, d := range docs {
		env, err := d.Envelope()
		if err != nil {
			undecodable = append(undecodable, SubscriptionTestEvent{EventID: d.EventID, EventType: events.Type(d.EventType),
				Timestamp: events.At(d.Timestamp), Reason: reasonUndecodable})
			continue
		}
		envs = append(envs, env)
	}
	return envs, undecodable, nil
}

// subscriptionError is a subscription that does not compile as a 400
// naming the field at fault (field, then subscribe.Error's own).
func subscriptionError(field string, err error) error {
	var se *subscribe.Error
	if errors.As(err, &se) {
		return &submit.ValidationError{Field: field + "." + se.Field, Reason: se.Reason, Err: err}
	}
	return &submit.ValidationError{Field: field, Reason: err.Error(), Err: err}
}
