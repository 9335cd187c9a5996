package httpapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"
	"unicode/utf8"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/fault"
	"github.com/streamops/streamops/internal/opsevents"
	"github.com/streamops/streamops/internal/partners/partner"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/submit"
)

// errPartnerNotFound is a partner neither the deployment's partners file
// nor the store names: nothing is delivered to it, so there is nothing to
// pause.
var errPartnerNotFound = errors.New("partner not found: neither the partners file nor the store names it")

// deliversTo is nil when something is delivered to partner id: the
// partners file names its endpoint, or the store keeps it (not deleted);
// else errPartnerNotFound.
func (a *api) deliversTo(ctx context.Context, id string) error {
	if c, ok := a.cfg.Partners[id]; ok && c.URL != "" {
		return nil
	}
	switch p, ok, err := a.storedPartner(ctx, id); {
	case err != nil:
		return err
	case ok && p.DeletedAt == nil:
		return nil
	}
	return fmt.Errorf("partner %q: %w", id, errPartnerNotFound)
}

// storedPartner is partner id as the store keeps it (a deleted one too);
// false when the store does not hold it or there is no Registry.
func (a *api) storedPartner(ctx context.Context, id string) (partner.View, bool, error) {
	if a.cfg.Registry == nil {
		return partner.View{}, false, nil
	}
	p, err := a.cfg.Registry.Get(ctx, id)
	switch {
	case err == nil:
		return p, true, nil
	case errors.Is(err, store.ErrNotFound):
		return partner.View{}, false, nil
	}
	return partner.View{}, false, err
}

// MaxPauseReason is the longest reason a pause keeps, in characters.
const MaxPauseReason = 500

// PauseRequest is the optional body of POST
// /api/partners/{partnerId}/pause.
type PauseRequest struct {
	// Reason is a note for the other operators (shown with the pause).
	Reason string `json:"reason,omitempty"`
}

// backlogView is what waits for a partner: entries pending, failed or
// processing, and how old the oldest is (0 when none waits).
type backlogView struct {
	Count            int        `json:"count"`
	OldestCreatedAt  *time.Time `json:"oldestCreatedAt"`
	OldestAgeSeconds float64    `json:"oldestAgeSeconds"`
}

func toBacklog(b store.Backlog, now time.Time) backlogView {
	v := backlogView{Count: b.Count, OldestCreatedAt: b.OldestCreatedAt}
	if b.OldestCreatedAt != nil {
		v.OldestAgeSeconds = max(0, now.Sub(*b.OldestCreatedAt).Seconds())
	}
	return v
}

// pauseRoutes registers the pause and resume of a partner's deliveries.
func (a *api) pauseRoutes(mux *http.ServeMux, admin func(handlerFunc) http.Handler) {
	mux.Handle("POST /api/partners/{partnerId}/pause", admin(a.pausePartner))
	mux.Handle("POST /api/partners/{partnerId}/resume", admin(a.resumePartner))
}

// pausePartner is POST /api/partners/{partnerId}/pause: the relays send
// nothing to the partner until it is resumed; its entries wait. 200 with
// the endpoint view; a partner already paused is left as it is (the first
// pause's time, operator and reason) and no second partner.paused is
// emitted.
func (a *api) pausePartner(w http.ResponseWriter, r *http.Request, p Principal) {
	var req PauseRequest
	a.changePause(w, r, &req, func(ctx context.Context, id string) (store.PartnerEndpoint, bool, error) {
		if utf8.RuneCountInString(req.Reason) > MaxPauseReason {
			return store.PartnerEndpoint{}, false, &submit.ValidationError{Field: "reason",
				Reason: fmt.Sprintf("at most %d characters", MaxPauseReason)}
		}
		// An operator's note is free text kept in the endpoint and the
		// event: scrubbed like any text from outside.
		req.Reason = fault.Scrubbed(req.Reason)
		return a.cfg.Store.PausePartner(ctx, id, p.ID, req.Reason)
	}, func(ctx context.Context, ep store.PartnerEndpoint, backlog int) {
		a.log.InfoContext(ctx, "partner paused", "partnerId", ep.PartnerID, "by", p.ID, "reason", req.Reason, "backlog", backlog)
		_ = a.cfg.Operations.Emit(ctx, events.PartnerPaused, ep.PartnerID, events.PartnerPausedPayload{
			PartnerID: ep.PartnerID, By: p.ID, Reason: ep.PauseReason, At: events.At(*ep.PausedAt), Backlog: backlog,
		}, opsevents.PausedID(ep.PartnerID, *ep.PausedAt))
	})
}

// resumePartner is POST /api/partners/{partnerId}/resume: the partner's
// waiting entries go out again, oldest first. 200 with the endpoint view;
// a partner not paused is left as it is and no partner.resumed is emitted.
func (a *api) resumePartner(w http.ResponseWriter, r *http.Request, p Principal) {
	var none struct{} // no field: any is refused as unknown
	a.changePause(w, r, &none, func(ctx context.Context, id string) (store.PartnerEndpoint, bool, error) {
		return a.cfg.Store.ResumePartner(ctx, id, p.ID)
	}, func(ctx context.Context, ep store.PartnerEndpoint, backlog int) {
		a.log.InfoContext(ctx, "partner resumed", "partnerId", ep.PartnerID, "by", p.ID, "backlog", backlog)
		_ = a.cfg.Operations.Emit(ctx, events.PartnerResumed, ep.PartnerID, events.PartnerResumedPayload{
			PartnerID: ep.PartnerID, By: p.ID, At: events.At(*ep.ResumedAt), PausedAt: events.AtPtr(ep.PausedAt), Backlog: backlog,
		}, opsevents.ResumedID(ep.PartnerID, *ep.ResumedAt))
	})
}

// changePause answers a pause or a resume: the partner must be one the
// partners file names (404 partner_not_found), the optional body is read
// strictly into req, change stores the new state, and when it changed
// anything, changed is told (after the state is stored: an event that
// cannot be emitted is logged, never the request's failure). The answer
// is the endpoint view, its backlog read after the change.
func (a *api) changePause(w http.ResponseWriter, r *http.Request, req any,
	change func(ctx context.Context, id string) (store.PartnerEndpoint, bool, error),
	changed func(ctx context.Context, ep store.PartnerEndpoint, backlog int)) {
	id := r.PathValue("partnerId")
	if err := a.deliversTo(r.Context(), id); err != nil {
		writeError(w, r, a.log, err)
		return
	}
	if err := decodeOptionalBody(w, r, req); err != nil {
		writeError(w, r, a.log, err)
		return
	}
	ep, did, err := change(r.Context(), id)
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	backlogs, err := a.cfg.Store.PartnerBacklog(r.Context(), id)
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	if did {
		changed(r.Context(), ep, backlogs[id].Count)
	}
	writeJSON(w, http.StatusOK, a.partner(map[string]store.PartnerEndpoint{id: ep}, backlogs, nil, id))
}
