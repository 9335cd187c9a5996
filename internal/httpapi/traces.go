package httpapi

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/streamops/streamops/internal/traceview"
	"github.com/streamops/streamops/internal/tracing"
)

// errInvalidTraceID is a trace id that is not one: 400 invalid_trace_id.
var errInvalidTraceID = errors.New("a trace id is 32 lowercase hex digits, not all zero")

// traceRoutes registers the trace view.
func (a *api) traceRoutes(mux *http.ServeMux, admin func(handlerFunc) http.Handler) {
	mux.Handle("GET /api/traces/{traceId}", admin(a.getTrace))
}

// getTrace is GET /api/traces/{traceId}: everything stored under the trace
// (store.Store.GetTrace) drawn as a tree (traceview.Build); 404 when
// nothing is.
func (a *api) getTrace(w http.ResponseWriter, r *http.Request, _ Principal) {
	id := r.PathValue("traceId")
	if !tracing.ValidTraceID(id) {
		writeError(w, r, a.log, fmt.Errorf("trace id %q: %w", id, errInvalidTraceID))
		return
	}
	t, err := a.cfg.Store.GetTrace(r.Context(), id)
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	writeJSON(w, http.StatusOK, traceview.Build(t))
}
