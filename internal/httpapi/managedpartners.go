package httpapi

import (
	"context"
	"errors"
	"fmt"
	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/opsevents"
	"net/http"
	"time"

	"github.com/streamops/streamops/internal/partners/partner"
	"github.com/streamops/streamops/internal/provider"
	"github.com/streamops/streamops/internal/store"
)

// errNoSuchPartner is a partner the store does not hold (or holds deleted,
// for a change): 404 partner_not_found.
var errNoSuchPartner = errors.New("partner not found")

// PartnerRegistry manages the partners kept in the store
// (partners.Registry): the API's managed-partner routes call it.
type PartnerRegistry interface {
	Create(ctx context.Context, s partner.Spec, by string) (partner.Created, error)
	Get(ctx context.Context, id string) (partner.View, error)
	List(ctx context.Context) ([]partner.View, error)
	Update(ctx context.Context, id string, p partner.Patch, by string) (partner.View, error)
	Delete(ctx context.Context, id, by string) (partner.Deleted, error)
	Rotate(ctx context.Context, id string, overlap *time.Duration, by string) (partner.Rotated, error)
	Disable(ctx context.Context, id, reason, by string) (partner.View, error)
	Enable(ctx context.Context, id, by string) (partner.View, error)
}

// managedPartnerRoutes registers the partners kept in the store (issue
// 35): create, read, change, delete, rotate, disable and enable. A
// partner's own token may read it, change its URL and subscriptions and
// rotate its secret (own); the rest is for admin tokens. Without a vault
// (whose keys seal the secrets) each answers 501 no_vault.
func (a *api) managedPartnerRoutes(mux *http.ServeMux, admin, own func(handlerFunc) http.Handler) {
	mux.Handle("POST /api/partners", admin(a.createPartner))
	mux.Handle("GET /api/partners/{partnerId}", own(a.getPartner))
	mux.Handle("PATCH /api/partners/{partnerId}", own(a.patchPartner))
	mux.Handle("DELETE /api/partners/{partnerId}", admin(a.deletePartner))
	mux.Handle("POST /api/partners/{partnerId}/secrets/rotate", own(a.rotatePartnerSecret))
	mux.Handle("POST /api/partners/{partnerId}/disable", admin(a.disablePartner))
	mux.Handle("POST /api/partners/{partnerId}/enable", admin(a.enablePartner))
}

// ManagedPartnerView is a stored partner as the API shows it: never a
// secret's value, the URL without credentials.
type ManagedPartnerView struct {
	partner.View
}

func toManagedPartner(p partner.View) ManagedPartnerView {
	p.URL = provider.RedactURL(p.URL)
	return ManagedPartnerView{p}
}

// SecretView is a signing secret in clear: in the answer of a create or a
// rotation only, never again.
type SecretView struct {
	ID       string     `json:"id"`
	Value    string     `json:"value"`
	NotAfter *time.Time `json:"notAfter,omitempty"`
}

// CreatedPartnerView is the answer of POST /api/partners.
type CreatedPartnerView struct {
	Partner ManagedPartnerView `json:"partner"`
	Secret  SecretView         `json:"secret"`
}

// RotatedSecretView is the answer of POST
// /api/partners/{partnerId}/secrets/rotate: the new secret, and when the
// older ones stop signing (null when there were none).
type RotatedSecretView struct {
	Partner        ManagedPartnerView `json:"partner"`
	Secret         SecretView         `json:"secret"`
	OldSecretsStop *time.Time         `json:"oldSecretsStop"`
}

// DeletedPartnerView is the answer of DELETE /api/partners/{partnerId}:
// the partner as kept (its history) and how many waiting deliveries were
// cancelled.
type DeletedPartnerView struct {
	Partner   ManagedPartnerView `json:"partner"`
	Cancelled int                `json:"cancelled"`
}

// RotateRequest is the optional body of a rotation: how long the older
// secrets keep signing ("24h" by default, "0s" stops them at once).
type RotateRequest struct {
	Overlap *string `json:"overlap,omitempty"`
}

// DisableRequest is the optional body of POST
// /api/partners/{partnerId}/disable.
type DisableRequest struct {
	Reason string `json:"reason,omitempty"`
}

// registry is the API's partner registry, or errNoVault.
func (a *api) registry() (PartnerRegistry, error) {
	if a.cfg.Registry == nil {
		return nil, fmt.Errorf("%w: partners managed at run time seal their secrets with its keys", errNoVault)
	}
	return a.cfg.Registry, nil
}

// createPartner is POST /api/partners: 201 with the partner and its
// first signing secret, shown this once.
func (a *api) createPartner(w http.ResponseWriter, r *http.Request, p Principal) {
	var spec partner.Spec
	a.managed(w, r, &spec, http.StatusCreated, func(ctx context.Context, reg PartnerRegistry) (any, error) {
		c, err := reg.Create(ctx, spec, p.ID)
		if err != nil {
			return nil, err
		}
		return CreatedPartnerView{Partner: toManagedPartner(c.Partner), Secret: toSecret(c.Secret)}, nil
	})
}

// getPartner is GET /api/partners/{partnerId}: the stored partner, also a
// deleted one (deletedAt set), without its secrets.
func (a *api) getPartner(w http.ResponseWriter, r *http.Request, p Principal) {
	a.managed(w, r, nil, http.StatusOK, func(ctx context.Context, reg PartnerRegistry) (any, error) {
		got, err := reg.Get(ctx, r.PathValue("partnerId"))
		return toManagedPartner(got), err
	})
}

// patchPartner is PATCH /api/partners/{partnerId}: the fields the body
// names change (null clears a limit), at its version when it names one.
func (a *api) patchPartner(w http.ResponseWriter, r *http.Request, p Principal) {
	var patch partner.Patch
	a.managed(w, r, &patch, http.StatusOK, func(ctx context.Context, reg PartnerRegistry) (any, error) {
		if err := partnerMayPatch(p, patch); err != nil {
			return nil, err
		}
		got, err := reg.Update(ctx, r.PathValue("partnerId"), patch, p.ID)
		return toManagedPartner(got), err
	})
}

// partnerMayPatch refuses a partner's own token a change of anything but
// its URL and subscriptions: its name, limits and the personal data it
// may receive in clear are the operator's to set.
func partnerMayPatch(p Principal, patch partner.Patch) error {
	if p.Admin {
		return nil
	}
	for field, set := range map[string]bool{"name": patch.Name.Set, "rateLimit": patch.RateLimit.Set,
		"maxInFlight": patch.MaxInFlight.Set, "clearPersonalData": patch.ClearPersonalData.Set} {
		if set {
			return fmt.Errorf("%w: a partner's token may change its url and subscriptions, not %s", ErrForbidden, field)
		}
	}
	return nil
}

// deletePartner is DELETE /api/partners/{partnerId}.
func (a *api) deletePartner(w http.ResponseWriter, r *http.Request, p Principal) {
	a.managed(w, r, nil, http.StatusOK, func(ctx context.Context, reg PartnerRegistry) (any, error) {
		d, err := reg.Delete(ctx, r.PathValue("partnerId"), p.ID)
		return DeletedPartnerView{Partner: toManagedPartner(d.Partner), Cancelled: d.Cancelled}, err
	})
}

// rotatePartnerSecret is POST /api/partners/{partnerId}/secrets/rotate.
func (a *api) rotatePartnerSecret(w http.ResponseWriter, r *http.Request, p Principal) {
	var req RotateRequest
	a.managed(w, r, &req, http.StatusOK, func(ctx context.Context, reg PartnerRegistry) (any, error) {
		var overlap *time.Duration
		if req.Overlap != nil {
			d, err := time.ParseDuration(*req.Overlap)
			if err != nil {
				return nil, &partner.FieldError{Field: "overlap", Reason: fmt.Sprintf("%q is not a duration such as 24h or 0s", *req.Overlap)}
			}
			overlap = &d
		}
		rot, err := reg.Rotate(ctx, r.PathValue("partnerId"), overlap, p.ID)
		if err != nil {
			return nil, err
		}
		return RotatedSecretView{Partner: toManagedPartner(rot.Partner), Secret: toSecret(rot.Secret), OldSecretsStop: rot.OldUntil}, nil
	})
}

// disablePartner is POST /api/partners/{partnerId}/disable: nothing is
// sent to the partner until it is enabled; its entries wait.
func (a *api) disablePartner(w http.ResponseWriter, r *http.Request, p Principal) {
	var req DisableRequest
	a.managed(w, r, &req, http.StatusOK, func(ctx context.Context, reg PartnerRegistry) (any, error) {
		id := r.PathValue("partnerId")
		before, err := reg.Get(ctx, id)
		if err != nil {
			return nil, err
		}
		got, err := reg.Disable(ctx, id, req.Reason, p.ID)
		if err == nil && !before.Disabled && got.DisabledAt != nil {
			_ = a.cfg.Operations.Emit(ctx, events.PartnerDisabled, id, events.PartnerDisabledPayload{
				PartnerID: id, Reason: got.DisabledReason, By: p.ID, DisabledAt: events.At(*got.DisabledAt),
			}, opsevents.DisabledID(id, *got.DisabledAt))
		}
		return toManagedPartner(got), err
	})
}

// enablePartner is POST /api/partners/{partnerId}/enable.
func (a *api) enablePartner(w http.ResponseWriter, r *http.Request, p Principal) {
	var none struct{} // no field: any is refused as unknown
	a.managed(w, r, &none, http.StatusOK, func(ctx context.Context, reg PartnerRegistry) (any, error) {
		id := r.PathValue("partnerId")
		before, err := reg.Get(ctx, id)
		if err != nil {
			return nil, err
		}
		got, err := reg.Enable(ctx, id, p.ID)
		if err == nil && before.Disabled {
			backlog := 0
			if b, err := a.cfg.Store.PartnerBacklog(ctx, id); err == nil {
				backlog = b[id].Count
			}
			_ = a.cfg.Operations.Emit(ctx, events.PartnerEnabled, id, events.PartnerEnabledPayload{
				PartnerID: id, By: p.ID, At: events.At(got.UpdatedAt), DisabledAt: events.AtPtr(before.DisabledAt), Backlog: backlog,
			}, opsevents.EnabledID(id, got.UpdatedAt))
		}
		return toManagedPartner(got), err
	})
}

// managed answers one managed-partner route: the registry (or 501), the
// body read strictly into req (none when nil; optional unless the route
// creates or patches), then do's answer with status ok.
func (a *api) managed(w http.ResponseWriter, r *http.Request, req any, ok int,
	do func(ctx context.Context, reg PartnerRegistry) (any, error)) {
	reg, err := a.registry()
	if err == nil && req != nil {
		switch req.(type) {
		case *partner.Spec, *partner.Patch:
			err = decodeBody(w, r, req)
		default:
			err = decodeOptionalBody(w, r, req)
		}
	}
	var v any
	if err == nil {
		v, err = do(r.Context(), reg)
	}
	if errors.Is(err, store.ErrNotFound) {
		err = fmt.Errorf("%w: %q (%v)", errNoSuchPartner, r.PathValue("partnerId"), err)
	}
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	writeJSON(w, ok, v)
}

func toSecret(s partner.Secret) SecretView {
	return SecretView{ID: s.ID, Value: s.Value, NotAfter: s.NotAfter}
}
