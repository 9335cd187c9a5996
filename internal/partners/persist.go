package partners

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/streamops/streamops/internal/outbox"
	"github.com/streamops/streamops/internal/partners/partner"
	"github.com/streamops/streamops/internal/provider"
	"github.com/streamops/streamops/internal/store"
)

// The one place a partner meets its store document (store.StoredPartner):
// the registry's shapes and the relay's outbox.Partner are mapped from
// and to it here, and only here are its fields read.

// toStored is the document of s (its secrets apart).
func toStored(s Spec) store.StoredPartner {
	return store.StoredPartner{ID: s.ID, Name: s.Name, URL: s.URL, RateLimit: s.RateLimit, MaxInFlight: s.MaxInFlight,
		ClearPersonalData: s.ClearPersonalData, Subscriptions: partner.StoredSubscriptions(s.Subscriptions)}
}

// specOf is the spec a document holds.
func specOf(d store.StoredPartner) Spec {
	return Spec{ID: d.ID, Name: d.Name, URL: d.URL, RateLimit: d.RateLimit, MaxInFlight: d.MaxInFlight,
		ClearPersonalData: d.ClearPersonalData, Subscriptions: partner.SubscriptionsOf(d.Subscriptions)}
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

// live is the partner's document if it exists and was not deleted.
func (r *Registry) live(ctx context.Context, id string) (store.StoredPartner, error) {
	d, err := r.cfg.Store.GetPartner(ctx, id)
	if err != nil {
		return store.StoredPartner{}, err
	}
	if d.DeletedAt != nil {
		return store.StoredPartner{}, fmt.Errorf("partner %s was deleted: %w", id, store.ErrNotFound)
	}
	return d, nil
}

// read is one read of the partners: those that exist, and File's that
// the store has never held; each sealed secret opened (from the snapshot
// before when unchanged).
func (d *Directory) read(ctx context.Context) (snapshot, error) {
	docs, err := d.cfg.Store.ListPartners(ctx, d.fileIDs...)
	if err != nil {
		return snapshot{}, fmt.Errorf("partners: read the partners: %w", err)
	}
	next := snapshot{partners: make(map[string]outbox.Partner, len(docs)+len(d.cfg.File)), secrets: make(map[string][]openSecret, len(docs))}
	for id, p := range d.cfg.File {
		next.partners[id] = p
	}
	for _, doc := range docs {
		delete(next.partners, doc.ID)
		if doc.DeletedAt != nil {
			continue
		}
		next.partners[doc.ID] = toOutbox(doc)
		known := d.snap.secrets[doc.ID]
		for _, sec := range doc.Secrets {
			o, err := d.opened(ctx, doc.ID, sec, known)
			if err != nil {
				return snapshot{}, err
			}
			next.secrets[doc.ID] = append(next.secrets[doc.ID], o)
		}
	}
	return next, nil
}

// opened is sec opened, from known when it was opened before unchanged.
func (d *Directory) opened(ctx context.Context, partnerID string, sec store.PartnerSecret, known []openSecret) (openSecret, error) {
	for _, k := range known {
		if k.id == sec.ID && bytes.Equal(k.sealed, sec.Sealed) {
			k.notAfter = sec.NotAfter
			return k, nil
		}
	}
	v, err := open(ctx, d.cfg.Wrapper, partnerID, sec)
	if err != nil {
		return openSecret{}, err
	}
	return openSecret{id: sec.ID, sealed: sec.Sealed, value: v, notAfter: sec.NotAfter}, nil
}

// importOne stores p with its current secrets; false when another
// instance stored it first.
func (r *Registry) importOne(ctx context.Context, p outbox.Partner, secrets provider.SecretSource) (bool, error) {
	doc := toStored(normalise(specOfOutbox(p)))
	doc.Source = store.PartnerSourceFile
	if secrets != nil {
		values, err := secrets.Secrets(ctx, p.ID)
		if err != nil {
			return false, err
		}
		// The source lists the newest first; the document keeps them
		// oldest first, as rotations append.
		for i := len(values) - 1; i >= 0; i-- {
			s, err := newSecret()
			if err != nil {
				return false, err
			}
			s.Value = values[i]
			sealed, err := seal(ctx, r.cfg.Wrapper, p.ID, s)
			if err != nil {
				return false, err
			}
			doc.Secrets = append(doc.Secrets, sealed)
		}
	}
	if len(doc.Secrets) == 0 {
		r.cfg.Logger.WarnContext(ctx, "partners file: imported without a signing secret; its deliveries are signed with the fallback source's, if any", "partnerId", p.ID)
	}
	_, err := r.cfg.Store.CreatePartner(ctx, doc)
	if errors.Is(err, store.ErrDuplicate) {
		return false, nil
	}
	return err == nil, err
}
