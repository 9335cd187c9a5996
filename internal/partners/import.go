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
