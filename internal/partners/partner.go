package partners

import (
	"encoding/json"
	"time"

	"github.com/streamops/streamops/internal/outbox"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/subscribe"
)

// Spec is what a partner is created with (POST /api/partners): its
// endpoint, limits, the personal data it may receive in clear and its
// subscriptions. Field names are the partners file's.
type Spec struct {
	ID                string                   `json:"id"`
	Name              string                   `json:"name"`
	URL               string                   `json:"url"`
	RateLimit         *float64                 `json:"rateLimit,omitempty"`
	MaxInFlight       *int                     `json:"maxInFlight,omitempty"`
	ClearPersonalData []string                 `json:"clearPersonalData,omitempty"`
	Subscriptions     []subscribe.Subscription `json:"subscriptions,omitempty"`
}

// Partner is a stored partner as the registry shows it: everything but
// the secrets' values, of which only the id and validity are told.
type Partner struct {
	Spec
	Secrets        []SecretInfo `json:"secrets"`
	Disabled       bool         `json:"disabled"`
	DisabledAt     *time.Time   `json:"disabledAt,omitempty"`
	DisabledReason string       `json:"disabledReason,omitempty"`
	DisabledBy     string       `json:"disabledBy,omitempty"`
	DeletedAt      *time.Time   `json:"deletedAt,omitempty"`
	// Source is where it came from: "api", or "file" (imported from the
	// partners file at start).
	Source    string    `json:"source"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
	// Version counts its changes; a PATCH may name the one it read.
	Version int `json:"version"`
}

// SecretInfo is one signing secret without its value.
type SecretInfo struct {
	ID        string     `json:"id"`
	CreatedAt time.Time  `json:"createdAt"`
	NotAfter  *time.Time `json:"notAfter,omitempty"`
}

// Change is one field of a Patch: Set when the field was given, Value
// nil when it was given as null (cleared: no limit, none).
type Change[T any] struct {
	Set   bool
	Value *T
}

// UnmarshalJSON records that the field was given; null clears it.
func (c *Change[T]) UnmarshalJSON(raw []byte) error {
	c.Set = true
	if string(raw) == "null" {
		c.Value = nil
		return nil
	}
	var v T
	if err := json.Unmarshal(raw, &v); err != nil {
		return err
	}
	c.Value = &v
	return nil
}

// Patch changes the fields it sets and keeps the others (PATCH
// /api/partners/{partnerId}, JSON merge-patch semantics: null clears).
// Version, when given, is the version the change was made against: a
// partner changed since is a conflict.
type Patch struct {
	Name              Change[string]                   `json:"name"`
	URL               Change[string]                   `json:"url"`
	RateLimit         Change[float64]                  `json:"rateLimit"`
	MaxInFlight       Change[int]                      `json:"maxInFlight"`
	ClearPersonalData Change[[]string]                 `json:"clearPersonalData"`
	Subscriptions     Change[[]subscribe.Subscription] `json:"subscriptions"`
	Version           *int                             `json:"version,omitempty"`
}

// apply is s with p's changes.
func (p Patch) apply(s Spec) Spec {
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
