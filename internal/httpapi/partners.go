package httpapi

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"time"

	"github.com/streamops/streamops/internal/partners/partner"
	"github.com/streamops/streamops/internal/provider"
	"github.com/streamops/streamops/internal/status"
	"github.com/streamops/streamops/internal/store"
)

// PartnerConfig is what the deployment's configuration says about one
// partner: the outbox relay's partners file (its delivery endpoint) and
// the providers file (the webhook routes its deliveries to us arrive on).
// It holds no secret: signing secrets live in Secrets Manager or the
// environment, never in these files.
type PartnerConfig struct {
	// ID is the partner id (entity_metadata.partnerId, the outbox's
	// target_provider).
	ID string
	// Name is the human-readable name.
	Name string
	// URL is the endpoint the outbox relay POSTs to; empty when the
	// partners file does not name the partner (nothing is delivered to it).
	// The API shows it without credentials (see provider.RedactURL).
	URL string
	// Webhooks are the providers whose deliveries are this partner's
	// inbound events.
	Webhooks []PartnerWebhook
	// RateLimit (deliveries per second) and MaxInFlight are the partners
	// file's limits on deliveries to it; nil when unlimited.
	RateLimit   *float64
	MaxInFlight *int
}

// aliasOf is the id of the partner whose webhook provider is named id,
// when that is not the partner's own id; "" otherwise. Everything that
// provider's deliveries cause carries the partner's id, so a token scoped
// to the provider's name would see none of it and is refused.
func (a *api) aliasOf(id string) string {
	if _, ok := a.cfg.Partners[id]; ok || id == "" {
		return ""
	}
	for pid, pc := range a.cfg.Partners {
		for _, w := range pc.Webhooks {
			if w.Provider == id && pid != id {
				return pid
			}
		}
	}
	return ""
}

// PartnerWebhook is one webhook provider of a partner.
type PartnerWebhook struct {
	// Provider is the provider's name, the last segment of its route
	// /webhooks/{provider}.
	Provider string
	// SignatureScheme is how its deliveries are signed (stripe, github,
	// standard, hmac).
	SignatureScheme string
}

// partnerView is one partner of GET /api/partners and GET
// /api/partners/{partnerId}/endpoint: the stored breaker state and, when
// the deployment configures the partner, its configuration.
type partnerView struct {
	partnerEndpointResponse
	Backlog backlogView `json:"backlog"`
	// RateLimit and MaxInFlight are the partners file's limits, null when
	// unlimited (or the partner is not configured).
	RateLimit   *float64           `json:"rateLimit"`
	MaxInFlight *int               `json:"maxInFlight"`
	Config      *partnerConfigView `json:"config,omitempty"`
	// Managed is the partner as the store keeps it (created through the
	// API or imported from the partners file), without its secrets;
	// absent when the store holds none. Its limits are the ones above.
	Managed *ManagedPartnerView `json:"managed,omitempty"`
}

// partnerConfigView is a PartnerConfig as the API shows it.
type partnerConfigView struct {
	Name        string               `json:"name,omitempty"`
	DeliveryURL string               `json:"deliveryUrl,omitempty"`
	Webhooks    []partnerWebhookView `json:"webhooks,omitempty"`
}

// partnerWebhookView is a PartnerWebhook with its route.
type partnerWebhookView struct {
	Provider        string `json:"provider"`
	Path            string `json:"path"`
	SignatureScheme string `json:"signatureScheme"`
}

func toPartnerConfig(c PartnerConfig) *partnerConfigView {
	v := &partnerConfigView{Name: c.Name, DeliveryURL: provider.RedactURL(c.URL)}
	for _, w := range c.Webhooks {
		v.Webhooks = append(v.Webhooks, partnerWebhookView{Provider: w.Provider,
			Path: "/webhooks/" + w.Provider, SignatureScheme: w.SignatureScheme})
	}
	return v
}

// partner is one partner's view: its stored endpoint state (a partner
// never delivered to has a closed breaker, and is not paused), its backlog
// and its configuration.
func (a *api) partner(eps map[string]store.PartnerEndpoint, backlogs map[string]store.Backlog, managed map[string]partner.View, id string) partnerView {
	ep, ok := eps[id]
	if !ok {
		ep = store.PartnerEndpoint{PartnerID: id, State: status.BreakerClosed}
	}
	v := partnerView{partnerEndpointResponse: toPartnerEndpoint(ep), Backlog: toBacklog(backlogs[id], time.Now())}
	if c, ok := a.cfg.Partners[id]; ok {
		v.Config = toPartnerConfig(c)
		v.RateLimit, v.MaxInFlight = c.RateLimit, c.MaxInFlight
	}
	if m, ok := managed[id]; ok {
		mv := toManagedPartner(m)
		v.Managed, v.RateLimit, v.MaxInFlight = &mv, m.RateLimit, m.MaxInFlight
		if v.Config == nil {
			v.Config = &partnerConfigView{}
		}
		v.Config.Name, v.Config.DeliveryURL = m.Name, mv.URL
	}
	return v
}

// managedPartners are the partners the store keeps, by id: every one for
// an admin, its own for a partner token; none without a registry.
func (a *api) managedPartners(ctx context.Context, p Principal) (map[string]partner.View, error) {
	out := map[string]partner.View{}
	switch {
	case a.cfg.Registry == nil:
		return out, nil
	case !p.Admin:
		own, ok, err := a.storedPartner(ctx, p.PartnerID)
		if ok {
			out[own.ID] = own
		}
		return out, err
	}
	list, err := a.cfg.Registry.List(ctx)
	if err != nil {
		return nil, err
	}
	for _, m := range list {
		out[m.ID] = m
	}
	return out, nil
}

// listPartners is GET /api/partners: every partner the store or the
// configuration knows, with its endpoint's breaker state and its
// configuration; a partner token sees only its own.
func (a *api) listPartners(w http.ResponseWriter, r *http.Request, p Principal) {
	managed, err := a.managedPartners(r.Context(), p)
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	ids := []string{p.PartnerID}
	if p.Admin {
		var err error
		if ids, err = a.cfg.Store.PartnerIDs(r.Context()); err != nil {
			writeError(w, r, a.log, err)
			return
		}
		for _, id := range append(slices.Collect(maps.Keys(a.cfg.Partners)), slices.Collect(maps.Keys(managed))...) {
			if !slices.Contains(ids, id) {
				ids = append(ids, id)
			}
		}
		slices.Sort(ids)
	}
	eps, err := a.cfg.Store.PartnerEndpoints(r.Context(), ids...)
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	backlogs, err := a.cfg.Store.PartnerBacklog(r.Context(), ids...)
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	out := make([]partnerView, len(ids))
	for i, id := range ids {
		out[i] = a.partner(eps, backlogs, managed, id)
	}
	writeJSON(w, http.StatusOK, map[string]any{"partners": out})
}

// partnerState is one partner's stored endpoint state and backlog.
type partnerState struct {
	eps      map[string]store.PartnerEndpoint
	backlogs map[string]store.Backlog
	managed  map[string]partner.View
}

// partnerEndpoint is GET /api/partners/{partnerId}/endpoint: with the
// stored partner's view when the store keeps it (why it is disabled).
func (a *api) partnerEndpoint() handlerFunc {
	return partnerRoute(a, func(ctx context.Context, id string) (partnerState, error) {
		eps, err := a.cfg.Store.PartnerEndpoints(ctx, id)
		if err != nil {
			return partnerState{}, err
		}
		backlogs, err := a.cfg.Store.PartnerBacklog(ctx, id)
		if err != nil {
			return partnerState{}, err
		}
		managed := map[string]partner.View{}
		m, ok, err := a.storedPartner(ctx, id)
		if ok {
			managed[id] = m
		}
		return partnerState{eps, backlogs, managed}, err
	}, func(id string, st partnerState) any { return a.partner(st.eps, st.backlogs, st.managed, id) })
}

// partnerEvents is GET /api/partners/{partnerId}/events.
func (a *api) partnerEvents() handlerFunc {
	return partnerRoute(a, a.cfg.Store.PartnerHistory, func(id string, evs []store.PartnerEvent) any {
		return map[string]any{"partnerId": id, "events": mapAll(evs, toPartnerEvent)}
	})
}

// partnerRoute answers a GET /api/partners/{partnerId}/… route with what
// load reads for the partner, shown through view; a partner token may
// read only its own partner's.
func partnerRoute[T any](a *api, load func(ctx context.Context, partnerID string) (T, error), view func(partnerID string, v T) any) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request, p Principal) {
		id := r.PathValue("partnerId")
		if err := ownPartner(p, id); err != nil {
			writeError(w, r, a.log, err)
			return
		}
		v, err := load(r.Context(), id)
		if err != nil {
			writeError(w, r, a.log, err)
			return
		}
		writeJSON(w, http.StatusOK, view(id, v))
	}
}

// ownPartner refuses a partner token asking for another partner.
func ownPartner(p Principal, partnerID string) error {
	if p.Admin || p.PartnerID == partnerID {
		return nil
	}
	return fmt.Errorf("%w: a token of partner %q cannot read or change partner %q", ErrForbidden, p.PartnerID, partnerID)
}
