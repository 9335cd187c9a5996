package httpapi

import (
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/ingest"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/submit"
	"github.com/streamops/streamops/internal/webhook"
)

// ErrorBody is the JSON shape of every error response.
type ErrorBody struct {
	Error ErrorDetail `json:"error"`
}

// ErrorDetail is a machine-readable code and a message saying what to fix.
type ErrorDetail struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	// Field names the request field at fault, when there is one.
	Field string `json:"field,omitempty"`
}

// errBadJSON marks a request body that is not the JSON the route expects.
var errBadJSON = errors.New("request body is not valid JSON")

// classify maps an error to its status and code: the one place where domain
// errors meet HTTP.
func classify(err error) (status int, code string) {
	var maxBytes *http.MaxBytesError
	var verr *submit.ValidationError
	var param *paramError
	switch {
	case errors.Is(err, ErrUnauthenticated):
		return http.StatusUnauthorized, "unauthenticated"
	case errors.Is(err, ErrForbidden):
		return http.StatusForbidden, "forbidden"
	case errors.As(err, &param), errors.Is(err, store.ErrBadCursor):
		return http.StatusBadRequest, "invalid_parameter"
	case errors.Is(err, ingest.ErrUnknownProvider):
		return http.StatusNotFound, "unknown_provider"
	case errors.Is(err, store.ErrNotFound):
		return http.StatusNotFound, "not_found"
	case errors.Is(err, ingest.ErrBodyTooLarge), errors.As(err, &maxBytes):
		return http.StatusRequestEntityTooLarge, "body_too_large"
	case errors.Is(err, webhook.ErrMissingSignature):
		return http.StatusUnauthorized, "missing_signature"
	case errors.Is(err, webhook.ErrInvalidSignature):
		return http.StatusUnauthorized, "invalid_signature"
	case errors.Is(err, webhook.ErrStaleTimestamp):
		return http.StatusUnauthorized, "stale_timestamp"
	case errors.Is(err, webhook.ErrNoSecret):
		return http.StatusInternalServerError, "provider_misconfigured"
	case errors.Is(err, ingest.ErrSecretsUnavailable):
		return http.StatusServiceUnavailable, "secrets_unavailable"
	case errors.Is(err, webhook.ErrInvalidPayload), errors.Is(err, errBadJSON):
		return http.StatusBadRequest, "invalid_payload"
	case errors.As(err, &verr), errors.Is(err, events.ErrInvalid):
		return http.StatusBadRequest, "validation_failed"
	case errors.Is(err, submit.ErrIdempotencyConflict):
		return http.StatusUnprocessableEntity, "idempotency_key_reused"
	}
	return http.StatusInternalServerError, "internal"
}

// writeError answers with err's status and JSON body. Server-side failures
// are logged in full and answered without internals.
func writeError(w http.ResponseWriter, r *http.Request, log *slog.Logger, err error) {
	status, code := classify(err)
	body := ErrorBody{Error: ErrorDetail{Code: code, Message: err.Error()}}
	var verr *submit.ValidationError
	var param *paramError
	if errors.As(err, &verr) {
		body.Error.Field = verr.Field
	} else if errors.As(err, &param) {
		body.Error.Field = param.Param
	}
	if status >= 500 {
		log.ErrorContext(r.Context(), "request failed", "method", r.Method, "path", r.URL.Path, "status", status, "error", err)
		body.Error.Message = http.StatusText(status) + ": the request was not stored; retry later"
		if status == http.StatusInternalServerError && code == "provider_misconfigured" {
			body.Error.Message = "the provider has no signing secret configured on our side"
		}
	} else {
		log.InfoContext(r.Context(), "request rejected", "method", r.Method, "path", r.URL.Path, "status", status, "code", code, "reason", err.Error())
	}
	writeJSON(w, status, body)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
