package httpapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/bus"
	"github.com/streamops/streamops/internal/history"
	"github.com/streamops/streamops/internal/ingest"
	"github.com/streamops/streamops/internal/jsonbody"
	"github.com/streamops/streamops/internal/partners/partner"
	"github.com/streamops/streamops/internal/provider"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/submit"
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
	// Allowed lists the values the field may take, when they are
	// enumerated (a query parameter such as status).
	Allowed []string `json:"allowed,omitempty"`
	// Limit is the bound the request went past, when the code names one
	// (too_deep: the deepest nesting admitted).
	Limit int `json:"limit,omitempty"`
	// Status is the resource's current status, when the code is
	// status_conflict (Field is then "status" and Allowed the statuses the
	// action applies to).
	Status string `json:"status,omitempty"`
	// Matched is how many entries a bulk requeue's filter matches now,
	// when the code is count_changed: confirm that count to go on.
	Matched *int `json:"matched,omitempty"`
}

// RetryAfterSeconds is the Retry-After of a 503 when the store is
// unavailable: long enough for a failover or a restart to finish.
const RetryAfterSeconds = "5"

// errBadJSON marks a request body that is not the JSON the route expects.
var errBadJSON = errors.New("request body is not valid JSON")

// bodyFieldError is a JSON body with a value of the wrong type in one
// field (a string where a number belongs): invalid_payload, naming the
// field.
type bodyFieldError struct {
	Field string
	err   error
}

func (e *bodyFieldError) Error() string { return e.err.Error() }
func (e *bodyFieldError) Unwrap() error { return e.err }

// classify maps an error to its status and code: the one place where domain
// errors meet HTTP.
func classify(err error) (status int, code string) {
	var maxBytes *http.MaxBytesError
	var verr *submit.ValidationError
	var param *paramError
	var dup *jsonbody.DuplicateKeyError
	var deep *jsonbody.DepthError
	var tooLarge *bus.TooLargeError
	var field *partner.FieldError
	switch {
	case errors.Is(err, ErrUnauthenticated):
		return http.StatusUnauthorized, "unauthenticated"
	case errors.Is(err, ErrForbidden):
		return http.StatusForbidden, "forbidden"
	case errors.Is(err, errNotAcceptable):
		return http.StatusNotAcceptable, "not_acceptable"
	case errors.As(err, &param), errors.Is(err, store.ErrBadCursor):
		return http.StatusBadRequest, "invalid_parameter"
	case errors.Is(err, errInvalidTraceID):
		return http.StatusBadRequest, "invalid_trace_id"
	case errors.Is(err, ingest.ErrUnknownProvider):
		return http.StatusNotFound, "unknown_provider"
	case errors.Is(err, errPartnerNotFound), errors.Is(err, errNoSuchPartner):
		return http.StatusNotFound, "partner_not_found"
	case errors.As(err, &field):
		return http.StatusBadRequest, "validation_failed"
	case errors.Is(err, partner.ErrExists):
		return http.StatusConflict, "partner_exists"
	case errors.Is(err, store.ErrVersionConflict):
		return http.StatusConflict, "version_conflict"
	case errors.Is(err, store.ErrTooManySecrets):
		return http.StatusConflict, "too_many_secrets"
	case errors.Is(err, store.ErrNotFound):
		return http.StatusNotFound, "not_found"
	case errors.Is(err, store.ErrExpired):
		return http.StatusGone, "expired"
	case errors.As(err, &tooLarge):
		return http.StatusRequestEntityTooLarge, "event_too_large"
	case errors.Is(err, ingest.ErrBodyTooLarge), errors.As(err, &maxBytes):
		return http.StatusRequestEntityTooLarge, "body_too_large"
	case errors.Is(err, provider.ErrMissingSignature):
		return http.StatusUnauthorized, "missing_signature"
	case errors.Is(err, provider.ErrInvalidSignature):
		return http.StatusUnauthorized, "invalid_signature"
	case errors.Is(err, provider.ErrStaleTimestamp):
		return http.StatusUnauthorized, "stale_timestamp"
	case errors.Is(err, provider.ErrNoSecret):
		return http.StatusInternalServerError, "provider_misconfigured"
	case errors.Is(err, ingest.ErrSecretsUnavailable):
		return http.StatusServiceUnavailable, "secrets_unavailable"
	case errors.As(err, &dup):
		return http.StatusBadRequest, "duplicate_key"
	case errors.As(err, &deep):
		return http.StatusBadRequest, "too_deep"
	case errors.Is(err, provider.ErrInvalidPayload), errors.Is(err, errBadJSON), errors.Is(err, jsonbody.ErrInvalid):
		return http.StatusBadRequest, "invalid_payload"
	case errors.As(err, &verr), errors.Is(err, events.ErrInvalid):
		return http.StatusBadRequest, "validation_failed"
	case errors.Is(err, store.ErrStatusConflict):
		return http.StatusConflict, "status_conflict"
	case errors.Is(err, store.ErrCountChanged):
		return http.StatusConflict, "count_changed"
	case errors.Is(err, submit.ErrIdempotencyConflict):
		return http.StatusUnprocessableEntity, "idempotency_key_reused"
	case errors.Is(err, store.ErrInvalidDocument):
		return http.StatusBadRequest, "unstorable_document"
	case errors.Is(err, store.ErrUnavailable):
		return http.StatusServiceUnavailable, "store_unavailable"
	case errors.Is(err, errNoVault):
		return http.StatusNotImplemented, "no_vault"
	case errors.Is(err, errNoSender):
		return http.StatusNotImplemented, "no_sender"
	case errors.Is(err, history.ErrNoPartnerFanOut):
		return http.StatusNotImplemented, "no_partner_fanout"
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
	var invalid *store.InvalidDocumentError
	var dup *jsonbody.DuplicateKeyError
	var deep *jsonbody.DepthError
	var tooLarge *bus.TooLargeError
	var form *provider.FormError
	var conflict *store.StatusConflictError
	var bodyField *bodyFieldError
	var changed *store.CountChangedError
	var field *partner.FieldError
	switch {
	case errors.As(err, &field):
		body.Error.Field = field.Field
	case errors.Is(err, errInvalidTraceID):
		body.Error.Field = "traceId"
	case errors.As(err, &bodyField):
		body.Error.Field = bodyField.Field
	case errors.As(err, &deep):
		body.Error.Field, body.Error.Limit = "body", deep.Limit
	case errors.As(err, &verr):
		body.Error.Field = verr.Field
	case errors.As(err, &form):
		body.Error.Field = form.Field
	case errors.As(err, &tooLarge):
		body.Error.Field = "body"
	case errors.As(err, &param):
		body.Error.Field, body.Error.Allowed = param.Param, param.Allowed
	case errors.As(err, &dup):
		body.Error.Field = dup.Path
	case errors.As(err, &changed):
		body.Error.Field, body.Error.Matched = "confirm", &changed.Matched
	case errors.As(err, &conflict):
		body.Error.Field, body.Error.Allowed, body.Error.Status = "status", conflict.Allowed, conflict.Status
	case errors.As(err, &invalid):
		body.Error.Field = invalid.Field
		body.Error.Message = "the body cannot be stored: " + invalid.Reason
		if invalid.Field != "" {
			body.Error.Message = fmt.Sprintf("the body cannot be stored: field %s: %s", invalid.Field, invalid.Reason)
		}
	}
	if status >= 500 {
		log.ErrorContext(r.Context(), "request failed", "method", r.Method, "path", r.URL.Path, "status", status, "error", err)
		body.Error.Message = http.StatusText(status) + ": the request may not have been stored; retrying it is safe (every write is idempotent)"
		switch code {
		case "provider_misconfigured":
			body.Error.Message = "the provider has no signing secret configured on our side"
		case "store_unavailable":
			w.Header().Set("Retry-After", RetryAfterSeconds)
			body.Error.Message = "the store did not answer in time: the request may or may not have been stored; retrying it is safe (every write is idempotent)"
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
