package partners

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/streamops/streamops/internal/outbox"
	"github.com/streamops/streamops/internal/provider"
	"github.com/streamops/streamops/internal/store"
)

// Imported says what an Import did with each partner of the file.
type Imported struct {
	// Created are the partners it stored (source "file").
	Created []string
	// Kept are the partners the store held already: its copy wins.
	Kept []string
}

// Import stores each partner of the partners file (outbox.LoadPartners)
// the store does not hold yet, with source "file" and the secrets secrets
// gives it now (PARTNER_SECRET_<ID> locally, Secrets Manager on AWS),
// sealed; one the store holds already (also deleted) is left as it is,
// and logged. So a second import, or one on every instance at once,
// changes nothing, and a partner changed through the API keeps its
// changes.
func (r *Registry) Import(ctx context.Context, file map[string]outbox.Partner, secrets provider.SecretSource) (Imported, error) {
	var out Imported
	ids := make([]string, 0, len(file))
	for id := range file {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		_, err := r.cfg.Store.GetPartner(ctx, id)
		switch {
		case err == nil:
			r.cfg.Logger.InfoContext(ctx, "partners file: the store holds this partner already; the store's copy wins", "partnerId", id)
			out.Kept = append(out.Kept, id)
			continue
		case !errors.Is(err, store.ErrNotFound):
			return out, err
		}
		created, err := r.importOne(ctx, file[id], secrets)
		if err != nil {
			return out, fmt.Errorf("partners: import %s: %w", id, err)
		}
		if created {
			out.Created = append(out.Created, id)
		} else {
			out.Kept = append(out.Kept, id)
		}
	}
	if len(out.Created) > 0 {
		r.cfg.Logger.InfoContext(ctx, "partners file imported", "created", out.Created, "kept", len(out.Kept))
	}
	return out, nil
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
