package httpapi

import (
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

// outboxRoutes registers the integration_outbox routes.
func (a *api) outboxRoutes(mux *http.ServeMux, admin func(handlerFunc) http.Handler) {
	mux.Handle("POST /api/outbox/{id}/requeue", admin(a.requeueOutboxEntry))
}

// requeueOutboxEntry is POST /api/outbox/{id}/requeue: the operator's
// requeue of a dead-lettered entry (store.Store.RequeueOutboxEntry), one
// conditional update whose result is the answer, so it shows what the
// requeue did even when the relay claims the entry a moment later.
func (a *api) requeueOutboxEntry(w http.ResponseWriter, r *http.Request, p Principal) {
	id := r.PathValue("id")
	e, err := a.cfg.Store.RequeueOutboxEntry(r.Context(), id, p.ID)
	if err != nil {
		writeError(w, r, a.log, fmt.Errorf("outbox entry %q: %w", id, err))
		return
	}
	a.log.InfoContext(r.Context(), "outbox entry requeued", "outboxId", e.OutboxID, "target", e.TargetProvider,
		"requeuedBy", p.ID, "requeues", e.Requeues)
	writeJSON(w, http.StatusAccepted, toOutboxRequeue(e))
}

func toOutboxRequeue(e store.OutboxEntry) OutboxRequeueResponse {
	return OutboxRequeueResponse{Requeued: true, OutboxID: e.OutboxID, Status: e.Status, Attempts: e.Attempts,
		MaxAttempts: e.MaxAttempts, NextAttemptAt: e.NextAttemptAt, LastError: e.LastError,
		RequeuedBy: e.RequeuedBy, RequeuedAt: e.RequeuedAt, Requeues: e.Requeues,
		TraceParent: e.TraceParent, TraceID: e.TraceID, DeliveryLog: e.DeliveryLog}
}
