package fanout

import (
	"context"

	"github.com/streamops/streamops/internal/subscribe"
)

// Directory is who subscribes to what: what fan-out needs of the partner
// directory. It is its own small interface, not outbox.PartnerDirectory,
// so a function that stores events (the webhook) can fan them out
// without linking the relay.
type Directory interface {
	// Subscriptions are the subscriptions of every partner the directory
	// holds now, by partner id: a partner without any is present with
	// none, a deleted one is absent. An error means they cannot be known
	// now.
	Subscriptions(ctx context.Context) (map[string][]subscribe.Subscription, error)
}

// PartnerLister lists partners of type P by id: outbox.PartnerDirectory
// is one, with P outbox.Partner.
type PartnerLister[P any] interface {
	Partners(ctx context.Context) (map[string]P, error)
}

// Over is the Directory of the partners dir lists, each subscribed to
// what subs says: fanout.Over(relayPartners, func(p outbox.Partner)
// []subscribe.Subscription { return p.Subscriptions }).
func Over[P any](dir PartnerLister[P], subs func(P) []subscribe.Subscription) Directory {
	return over[P]{dir: dir, subs: subs}
}

// over is Over's Directory.
type over[P any] struct {
	dir  PartnerLister[P]
	subs func(P) []subscribe.Subscription
}

// Subscriptions reads the partners and keeps their subscriptions.
func (o over[P]) Subscriptions(ctx context.Context) (map[string][]subscribe.Subscription, error) {
	partners, err := o.dir.Partners(ctx)
	if err != nil {
		return nil, err
	}
	out := make(map[string][]subscribe.Subscription, len(partners))
	for id, p := range partners {
		out[id] = o.subs(p)
	}
	return out, nil
}

// Static is a fixed Directory: partner ids and their subscriptions.
type Static map[string][]subscribe.Subscription

// Subscriptions returns the map itself.
func (s Static) Subscriptions(context.Context) (map[string][]subscribe.Subscription, error) {
	return s, nil
}
