package partners

import (
	"encoding/json"

	"github.com/streamops/streamops/internal/outbox"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/subscribe"
)

// apply is s with p's changes.
func apply(p Patch, s Spec) Spec {
	if p.Name.Set {
		s.Name = deref(p.Name.Value)
	}
	if p.URL.Set {
		s.URL = deref(p.URL.Value)
	}
	if p.RateLimit.Set {
		s.RateLimit = p.RateLimit.Value
	}
	if p.MaxInFlight.Set {
		s.MaxInFlight = p.MaxInFlight.Value
	}
	if p.ClearPersonalData.Set {
		s.ClearPersonalData = deref(p.ClearPersonalData.Value)
	}
	if p.Subscriptions.Set {
		s.Subscriptions = deref(p.Subscriptions.Value)
	}
	return s
}

func deref[T any](v *T) T {
	if v == nil {
		var zero T
		return zero
	}
	return *v
}

// toStored is the document of s (its secrets apart).
func toStored(s Spec) store.StoredPartner {
	d := store.StoredPartner{ID: s.ID, Name: s.Name, URL: s.URL, RateLimit: s.RateLimit, MaxInFlight: s.MaxInFlight,
		ClearPersonalData: s.ClearPersonalData}
	for _, sub := range s.Subscriptions {
		d.Subscriptions = append(d.Subscriptions, store.PartnerSubscription{EventTypes: sub.EventTypes, Filter: string(sub.Filter)})
	}
	return d
}

// specOf is the spec a document holds.
func specOf(d store.StoredPartner) Spec {
	s := Spec{ID: d.ID, Name: d.Name, URL: d.URL, RateLimit: d.RateLimit, MaxInFlight: d.MaxInFlight,
		ClearPersonalData: d.ClearPersonalData}
	for _, sub := range d.Subscriptions {
		out := subscribe.Subscription{EventTypes: sub.EventTypes}
		if sub.Filter != "" {
			out.Filter = json.RawMessage(sub.Filter)
		}
		s.Subscriptions = append(s.Subscriptions, out)
	}
	return s
}

// view is a document as the registry shows it.
func view(d store.StoredPartner) Partner {
	p := Partner{Spec: specOf(d), Secrets: []SecretInfo{}, Disabled: d.Disabled, DisabledAt: d.DisabledAt,
		DisabledReason: d.DisabledReason, DisabledBy: d.DisabledBy, DeletedAt: d.DeletedAt, Source: d.Source,
		CreatedAt: d.CreatedAt, UpdatedAt: d.UpdatedAt, Version: d.Version}
	for _, s := range d.Secrets {
		p.Secrets = append(p.Secrets, SecretInfo{ID: s.ID, CreatedAt: s.CreatedAt, NotAfter: s.NotAfter})
	}
	return p
}

// toOutbox is the relay's partner of a document.
func toOutbox(d store.StoredPartner) outbox.Partner {
	s := specOf(d)
	return outbox.Partner{ID: s.ID, Name: s.Name, URL: s.URL, RateLimit: s.RateLimit, MaxInFlight: s.MaxInFlight,
		ClearPersonalData: s.ClearPersonalData, Subscriptions: s.Subscriptions,
		Disabled: d.Disabled, DisabledReason: d.DisabledReason}
}

// specOfOutbox is the spec of a partners file entry.
func specOfOutbox(p outbox.Partner) Spec {
	return Spec{ID: p.ID, Name: p.Name, URL: p.URL, RateLimit: p.RateLimit, MaxInFlight: p.MaxInFlight,
		ClearPersonalData: p.ClearPersonalData, Subscriptions: p.Subscriptions}
}
