package httpapi

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/streamops/streamops/internal/status"
	"github.com/streamops/streamops/internal/store"
)

// deadLetterPage is GET /api/dead-letters.
type deadLetterPage struct {
	DeadLetters []DeadLetterResponse `json:"deadLetters"`
	NextCursor  string               `json:"nextCursor,omitempty"`
}

// bulkRequeue is the body of POST /api/dead-letters/requeue: which dead
// letters to send back (default: the open ones, at most limit).
type bulkRequeue struct {
	Topic     string     `json:"topic,omitempty"`
	EventType string     `json:"event_type,omitempty"`
	Status    string     `json:"status,omitempty"`
	From      *time.Time `json:"from,omitempty"`
	To        *time.Time `json:"to,omitempty"`
	Limit     int        `json:"limit,omitempty"`
}

// deadLetterStatusFilter are the values a dead-letter status filter may
// take (GET /api/dead-letters?status=, the requeue body's status): the
// document's DeadLetterStatusFilter.
func deadLetterStatusFilter() []string {
	deadLetterStatusOnce.Do(func() { deadLetterStatuses = schemaEnum("DeadLetterStatusFilter") })
	return deadLetterStatuses
}

var (
	deadLetterStatusOnce sync.Once
	deadLetterStatuses   []string
)

// deadLetterRoutes registers the dead-letter routes.
func (a *api) deadLetterRoutes(mux *http.ServeMux, admin func(handlerFunc) http.Handler) {
	mux.Handle("GET /api/dead-letters", admin(a.listDeadLetters()))
	mux.Handle("POST /api/dead-letters/{id}/requeue", admin(a.requeueDeadLetter()))
	mux.Handle("POST /api/dead-letters/requeue", admin(a.requeueDeadLetters))
}

// listDeadLetters is GET /api/dead-letters.
func (a *api) listDeadLetters() handlerFunc {
	return listRoute(a, func(ctx context.Context, q url.Values, l listing) ([]store.DeadLetterEntry, string, error) {
		return a.cfg.Store.ListDeadLetters(ctx, store.DeadLetterQuery{Topic: q.Get("topic"), EventType: q.Get("event_type"),
			Status: filterValue(q, "status"), From: l.From, To: l.To, After: l.After, Limit: l.Limit})
	}, func(dls []store.DeadLetterEntry, next string) any {
		return deadLetterPage{DeadLetters: mapAll(dls, toDeadLetter), NextCursor: next}
	})
}

// requeueDeadLetter is POST /api/dead-letters/{id}/requeue.
func (a *api) requeueDeadLetter() handlerFunc {
	return actOnID(a, "dead letter", a.cfg.Store.GetDeadLetter, func(dl store.DeadLetterEntry) string { return dl.ID },
		func(ctx context.Context, p Principal, dl store.DeadLetterEntry) error {
			_, err := a.cfg.Requeuer.Requeue(ctx, p.ID, dl)
			return err
		}, toDeadLetter, nil)
}

func (a *api) requeueDeadLetters(w http.ResponseWriter, r *http.Request, p Principal) {
	var req bulkRequeue
	if err := decodeBody(w, r, &req); err != nil {
		writeError(w, r, a.log, err)
		return
	}
	if req.Limit < 0 || req.Limit > MaxLimit {
		writeError(w, r, a.log, &paramError{Param: "limit", Reason: fmt.Sprintf("must be from 1 to %d", MaxLimit)})
		return
	}
	switch req.Status {
	case "":
		req.Status = status.DeadLetterOpen
	case AllValues:
		req.Status = ""
	default:
		if err := checkEnum("status", []string{req.Status}, deadLetterStatusFilter()); err != nil {
			writeError(w, r, a.log, err)
			return
		}
	}
	dls, _, err := a.cfg.Store.ListDeadLetters(r.Context(), store.DeadLetterQuery{Topic: req.Topic, EventType: req.EventType,
		Status: req.Status, From: req.From, To: req.To, Limit: req.Limit})
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	n, err := a.cfg.Requeuer.Requeue(r.Context(), p.ID, dls...)
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	a.log.InfoContext(r.Context(), "dead letters requeued", "count", n, "topic", req.Topic, "eventType", req.EventType)
	writeJSON(w, http.StatusAccepted, map[string]int{"requeued": n})
}
