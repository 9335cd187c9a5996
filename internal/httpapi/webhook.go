package httpapi

import (
	"io"
	"log/slog"
	"net/http"

	"github.com/streamops/streamops/internal/ingest"
)

// maxWebhookBody caps what is read of any webhook body: the Lambda payload
// limit. Each provider's own (smaller) limit is enforced by ingest.
const maxWebhookBody = 6 << 20

// Webhooks serves POST /webhooks/{provider}: 202 {"status":"accepted"} for a
// new event, 200 {"status":"duplicate"} for a redelivery, each with the
// webhookEventId, and X-Trace-Id naming the trace of the event's work (a
// redelivery's: the first delivery's); errors as classify maps them. Nothing is stored for a
// rejected request.
func Webhooks(svc *ingest.Service, log *slog.Logger) http.Handler {
	if log == nil {
		log = slog.Default()
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /webhooks/{provider}", func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxWebhookBody))
		if err != nil {
			writeError(w, r, log, err)
			return
		}
		receipt, err := svc.Receive(r.Context(), r.PathValue("provider"), r.Header, body)
		if err != nil {
			writeError(w, r, log, err)
			return
		}
		status := http.StatusAccepted
		if receipt.Status == ingest.Duplicate {
			status = http.StatusOK
		}
		answerTrace(w, r, receipt.TraceID) // a redelivery's work is in the first delivery's trace
		writeJSON(w, status, receipt)
	})
	return withNotFound(mux, nil)
}

// withNotFound answers unmatched routes with the JSON error shape instead of
// net/http's plain text. A non-nil guard runs first on those requests and
// answers them itself when it returns false: the API's guard turns away
// callers without a known token, so they cannot probe which routes exist.
func withNotFound(mux *http.ServeMux, guard func(http.ResponseWriter, *http.Request) bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, pattern := mux.Handler(r); pattern == "" {
			if guard != nil && !guard(w, r) {
				return
			}
			status, code := http.StatusNotFound, "route_not_found"
			msg := "no route " + r.Method + " " + r.URL.Path
			if allowed := methodsFor(mux, r); allowed != "" {
				status, code = http.StatusMethodNotAllowed, "method_not_allowed"
				w.Header().Set("Allow", allowed)
				msg = r.Method + " is not allowed on " + r.URL.Path + " (allowed: " + allowed + ")"
			}
			writeJSON(w, status, ErrorBody{Error: ErrorDetail{Code: code, Message: msg}})
			return
		}
		mux.ServeHTTP(w, r)
	})
}

func methodsFor(mux *http.ServeMux, r *http.Request) string {
	var allowed string
	for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodDelete} {
		probe := r.Clone(r.Context())
		probe.Method = m
		if _, p := mux.Handler(probe); p != "" {
			if allowed != "" {
				allowed += ", "
			}
			allowed += m
		}
	}
	return allowed
}
