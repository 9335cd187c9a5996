package httpapi

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/streamops/streamops/internal/store"
)

// OutboxRequeueResponse is the answer of POST /api/outbox/{id}/requeue:
// the entry as the requeue left it, a new round of attempts due now.
type OutboxRequeueResponse struct {
	Requeued      bool      `json:"requeued"`
	OutboxID      string    `json:"outboxId"`
	Status        string    `json:"status"`
	Attempts      int       `json:"attempts"`
	MaxAttempts   int       `json:"maxAttempts"`
	NextAttemptAt time.Time `json:"nextAttemptAt"`
	// LastError is why the previous round ended, until the next attempt.
	LastError  string     `json:"lastError,omitempty"`
	RequeuedBy string     `json:"requeuedBy"`
	RequeuedAt *time.Time `json:"requeuedAt"`
	// Requeues counts the operator's requeues of the entry, this one
	// included.
	Requeues int `json:"requeues"`
	// TraceParent and TraceID are the trace the entry's deliveries
	// continue; DeliveryLog is its partner attempts, oldest first. A
	// requeue keeps them.
	TraceParent string                  `json:"traceparent,omitempty"`
	TraceID     string                  `json:"traceId,omitempty"`
	DeliveryLog []store.DeliveryAttempt `json:"deliveryLog,omitempty"`
}

// outboxRoutes registers the integration_outbox routes: one entry, its
// requeue and resend, and a partner's deliveries (readable by its own
// partner token too) and their bulk requeue.
func (a *api) outboxRoutes(mux *http.ServeMux, admin, any, own func(handlerFunc) http.Handler) {
	mux.Handle("GET /api/outbox/{id}", admin(getByID(a, "outbox entry", a.cfg.Store.GetOutboxEntry,
		func(e store.OutboxEntry) OutboxEntryResponse { return toOutboxEntry(e, true) })))
	mux.Handle("POST /api/outbox/{id}/requeue", admin(a.requeueOutboxEntry()))
	mux.Handle("POST /api/outbox/{id}/resend", admin(a.resendOutboxEntry()))
	mux.Handle("GET /api/partners/{partnerId}/deliveries", any(a.partnerDeliveries))
	mux.Handle("POST /api/partners/{partnerId}/requeue", own(a.requeuePartnerDeliveries))
}

// requeueOutboxEntry is POST /api/outbox/{id}/requeue: the operator's
// requeue of a dead-lettered entry (store.Store.RequeueOutboxEntry).
func (a *api) requeueOutboxEntry() handlerFunc {
	return outboxRound(a, "requeued", a.cfg.Store.RequeueOutboxEntry, toOutboxRequeue)
}

// resendOutboxEntry is POST /api/outbox/{id}/resend: a completed entry is
// sent again as a new round (store.Store.ResendOutboxEntry), answered with
// the entry view.
func (a *api) resendOutboxEntry() handlerFunc {
	return outboxRound(a, "resent", a.cfg.Store.ResendOutboxEntry,
		func(e store.OutboxEntry) OutboxEntryResponse { return toOutboxEntry(e, true) })
}

// outboxRound answers POST /api/outbox/{id}/<action>: start begins a new
// round of the entry as the caller, in one conditional update whose
// result is the 202 answer, so it shows what the action did even when the
// relay claims the entry a moment later.
func outboxRound[V any](a *api, did string, start func(ctx context.Context, outboxID, by string) (store.OutboxEntry, error),
	view func(store.OutboxEntry) V) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request, p Principal) {
		id := r.PathValue("id")
		e, err := start(r.Context(), id, p.ID)
		if err != nil {
			writeError(w, r, a.log, fmt.Errorf("outbox entry %q: %w", id, err))
			return
		}
		a.log.InfoContext(r.Context(), "outbox entry "+did, "outboxId", e.OutboxID, "target", e.TargetProvider,
			"by", p.ID, "requeues", e.Requeues, "resends", e.Resends)
		writeJSON(w, http.StatusAccepted, view(e))
	}
}

func toOutboxRequeue(e store.OutboxEntry) OutboxRequeueResponse {
	return OutboxRequeueResponse{Requeued: true, OutboxID: e.OutboxID, Status: e.Status, Attempts: e.Attempts,
		MaxAttempts: e.MaxAttempts, NextAttemptAt: e.NextAttemptAt, LastError: e.LastError,
		RequeuedBy: e.RequeuedBy, RequeuedAt: e.RequeuedAt, Requeues: e.Requeues,
		TraceParent: e.TraceParent, TraceID: e.TraceID, DeliveryLog: e.DeliveryLog}
}
