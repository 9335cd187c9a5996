package httpapi

import (
	"context"
	"net/http"

	"github.com/streamops/streamops/internal/tracing"
)

// Headers of the trace and correlation of an API request (docs/api.md,
// "Tracing headers"). apigw puts X-Trace-Id and traceresponse on every
// answer; a route whose work continues another trace than the request's
// (a rerun, a webhook retry, a repeated submission) names that trace in
// X-Trace-Id itself.
const (
	TraceIDHeader       = "X-Trace-Id"
	CorrelationIDHeader = "X-Correlation-Id"
)

// MaxCorrelationID is the longest X-Correlation-Id taken from a caller.
const MaxCorrelationID = 128

type correlationKey struct{}

// withCorrelation gives every API request its correlation id
// (correlationID), echoed in the answer's X-Correlation-Id and carried
// by the context to what the request submits (metadata.correlationId).
func withCorrelation(h http.Handler, requestID func(context.Context) string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := correlationID(r, requestID)
		if id != "" {
			w.Header().Set(CorrelationIDHeader, id)
			r = r.WithContext(context.WithValue(r.Context(), correlationKey{}, id))
		}
		h.ServeHTTP(w, r)
	})
}

// correlationID is the caller's X-Correlation-Id when it is 1 to
// MaxCorrelationID visible ASCII characters, else the request id
// requestID gives (API Gateway's). A header breaking the rule is
// replaced, not refused: a correlation id is the caller's convenience,
// and a request is never turned away for it.
func correlationID(r *http.Request, requestID func(context.Context) string) string {
	if v := r.Header.Get(CorrelationIDHeader); visibleASCII(v, MaxCorrelationID) {
		return v
	}
	if requestID == nil {
		return ""
	}
	return requestID(r.Context())
}

// visibleASCII reports whether s is 1 to maxLen characters from '!' to
// '~'.
func visibleASCII(s string, maxLen int) bool {
	if s == "" || len(s) > maxLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '!' || s[i] > '~' {
			return false
		}
	}
	return true
}

// requestCorrelation is the correlation id withCorrelation gave r.
func requestCorrelation(r *http.Request) string {
	id, _ := r.Context().Value(correlationKey{}).(string)
	return id
}

// answerTrace names traceID in the answer's X-Trace-Id when it is a
// trace other than the request's own: the work the answer is about
// continues it. Call it before the answer is written.
func answerTrace(w http.ResponseWriter, r *http.Request, traceID string) {
	if tracing.ValidTraceID(traceID) && traceID != tracing.TraceID(r.Context()) {
		w.Header().Set(TraceIDHeader, traceID)
	}
}
