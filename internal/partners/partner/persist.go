package partner

import (
	"context"
	"encoding/json"

	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/subscribe"
)

// The one place this package meets the partners' store documents: the
// subscriptions as stored (the filter as JSON text) and as the matcher
// takes them, and fan-out's read of them.

// StoredSubscriptions are subs as a partners document keeps them.
func StoredSubscriptions(subs []subscribe.Subscription) []store.PartnerSubscription {
	var out []store.PartnerSubscription
	for _, sub := range subs {
		out = append(out, store.PartnerSubscription{EventTypes: sub.EventTypes, Filter: string(sub.Filter)})
	}
	return out
}

// SubscriptionsOf are a partners document's subscriptions.
func SubscriptionsOf(stored []store.PartnerSubscription) []subscribe.Subscription {
	var out []subscribe.Subscription
	for _, sub := range stored {
		s := subscribe.Subscription{EventTypes: sub.EventTypes}
		if sub.Filter != "" {
			s.Filter = json.RawMessage(sub.Filter)
		}
		out = append(out, s)
	}
	return out
}

// Subscriptions is who subscribes to what among the partners kept in the
// store, for fan-out (fanout.Directory) in a function that must not link
// the relay: one read of the partners, no secret opened. A disabled
// partner is present (its entries wait), a deleted one absent. Wrap it in
// fanout.NewCached to read at most once per TTL.
type Subscriptions struct {
	Store *store.Store
	// File are the partners file's subscriptions by partner id; one of a
	// partner the store has never held (not imported yet) is served from
	// here. nil: none.
	File map[string][]subscribe.Subscription
}

// Subscriptions are the subscriptions of every partner by id, a partner
// without any present with none.
func (s Subscriptions) Subscriptions(ctx context.Context) (map[string][]subscribe.Subscription, error) {
	ids := make([]string, 0, len(s.File))
	for id := range s.File {
		ids = append(ids, id)
	}
	docs, err := s.Store.ListPartners(ctx, ids...)
	if err != nil {
		return nil, err
	}
	out := make(map[string][]subscribe.Subscription, len(docs)+len(s.File))
	for id, subs := range s.File {
		out[id] = subs
	}
	for _, d := range docs {
		delete(out, d.ID)
		if d.DeletedAt == nil {
			out[d.ID] = SubscriptionsOf(d.Subscriptions)
		}
	}
	return out, nil
}
