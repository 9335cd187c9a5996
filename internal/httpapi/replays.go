package httpapi

import (
	"fmt"
	"net/http"
	"strconv"

	"github.com/streamops/streamops/internal/history"
	"github.com/streamops/streamops/internal/store"
)

// Replay listing bounds (GET /api/replays?limit=).
const (
	DefaultReplayLimit = 20
	MaxReplayLimit     = 100
)

// replayRoutes are the replay job's routes: start (or dry-run), list,
// read, cancel.
func (a *api) replayRoutes(mux *http.ServeMux, admin func(handlerFunc) http.Handler) {
	mux.Handle("POST /api/replays", admin(a.createReplay))
	mux.Handle("GET /api/replays", admin(a.listReplays))
	mux.Handle("GET /api/replays/{id}", admin(getByID(a, "replay", a.cfg.Store.GetReplaySession, toReplay)))
	mux.Handle("POST /api/replays/{id}/cancel", admin(a.cancelReplay))
}

// replayRequest is the body of POST /api/replays.
type replayRequest struct {
	Filter      store.ReplayFilter `json:"filter"`
	DryRun      bool               `json:"dryRun"`
	TargetTopic string             `json:"targetTopic,omitempty"`
	// RatePerSecond caps the replay's events a second; absent:
	// history.DefaultReplayRate.
	RatePerSecond *float64 `json:"ratePerSecond,omitempty"`
	// PartnerID replays to that partner's subscriptions instead of Kafka
	// (store.ReplayConfig.PartnerID).
	PartnerID string `json:"partnerId,omitempty"`
}

// createReplay is POST /api/replays: a dry run answers the count and a
// sample; otherwise the session is stored and answered at once with 202
// and its Location, and the retry-sweeper replays it (history.Replayer).
func (a *api) createReplay(w http.ResponseWriter, r *http.Request, p Principal) {
	var req replayRequest
	if err := decodeBody(w, r, &req); err != nil {
		writeError(w, r, a.log, err)
		return
	}
	err := checkFilter(req.Filter, "filter.")
	if err == nil && !req.Filter.SelectsSome() && !req.DryRun {
		err = &paramError{Param: "filter", Reason: "is empty: a replay of every event must be asked for with at least one filter field"}
	}
	rate := float64(history.DefaultReplayRate)
	if req.RatePerSecond != nil {
		rate = *req.RatePerSecond
	}
	if err == nil && !history.ValidRate(rate) {
		err = &paramError{Param: "ratePerSecond", Reason: fmt.Sprintf("must be greater than 0 and at most %d, got %v", history.MaxReplayRate, rate)}
	}
	if err == nil && req.PartnerID != "" {
		err = a.checkReplayPartner(r, req)
	}
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	if req.DryRun {
		n, sample, err := a.cfg.Replayer.Preview(r.Context(), req.Filter)
		if err != nil {
			writeError(w, r, a.log, err)
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"dryRun": true, "count": n, "sample": sample})
		return
	}
	rs, err := a.cfg.Replayer.Start(r.Context(), store.ReplayConfig{Filter: req.Filter, TargetTopic: req.TargetTopic,
		RatePerSecond: rate, UserID: p.ID, PartnerID: req.PartnerID})
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	w.Header().Set("Location", "/api/replays/"+rs.ID)
	writeJSON(w, http.StatusAccepted, toReplay(rs))
}

// listReplays is GET /api/replays?limit=: the newest sessions first.
func (a *api) listReplays(w http.ResponseWriter, r *http.Request, _ Principal) {
	limit := DefaultReplayLimit
	if v := r.URL.Query().Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > MaxReplayLimit {
			writeError(w, r, a.log, &paramError{Param: "limit", Reason: fmt.Sprintf("must be a whole number from 1 to %d, got %q", MaxReplayLimit, v)})
			return
		}
		limit = n
	}
	sessions, err := a.cfg.Store.ListReplaySessions(r.Context(), limit)
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	writeJSON(w, http.StatusOK, struct {
		Replays []ReplayResponse `json:"replays"`
	}{mapAll(sessions, toReplay)})
}

// cancelReplay is POST /api/replays/{id}/cancel: 200 with the cancelled
// session (again for one already cancelled), 409 for one that ended
// otherwise, 404 for none.
func (a *api) cancelReplay(w http.ResponseWriter, r *http.Request, _ Principal) {
	rs, err := a.cfg.Replayer.Cancel(r.Context(), r.PathValue("id"))
	if err != nil {
		writeError(w, r, a.log, fmt.Errorf("replay %q: %w", r.PathValue("id"), err))
		return
	}
	writeJSON(w, http.StatusOK, toReplay(rs))
}

// checkReplayPartner refuses a replay to a partner with a target topic
// too, or to a partner the partner directory does not hold.
func (a *api) checkReplayPartner(r *http.Request, req replayRequest) error {
	if req.TargetTopic != "" {
		return &paramError{Param: "partnerId", Reason: "a replay goes either to a partner's subscriptions or to a topic: leave out targetTopic"}
	}
	_, err := a.partnerSubscriptions(r, req.PartnerID, nil)
	return err
}
