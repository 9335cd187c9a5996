package apigw

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"strings"

	"github.com/aws/aws-lambda-go/events"
)

// Handler returns a Lambda handler that serves API Gateway HTTP API
// requests (payload format 2.0) with h, each in a SERVER span that
// continues the caller's traceparent (or starts a trace): the request's
// context carries it, and every answer, its own 400s included, names it
// in X-Trace-Id and traceresponse. An event that is not one (no
// version 2.0, routeKey or requestContext.http.method) fails the
// invocation with an *InvocationError; Function names what it was.
func Handler(h http.Handler) func(context.Context, events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
	return func(ctx context.Context, req events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
		if !isHTTPRequest(req) {
			return events.APIGatewayV2HTTPResponse{}, &InvocationError{Got: fmt.Sprintf("an event of version %q, routeKey %q "+
				"and method %q", req.Version, req.RouteKey, req.RequestContext.HTTP.Method)}
		}
		ctx, span := startServerSpan(ctx, req)
		var resp events.APIGatewayV2HTTPResponse
		if r, err := NewRequest(ctx, req); err != nil {
			resp = events.APIGatewayV2HTTPResponse{
				StatusCode: http.StatusBadRequest,
				Headers:    map[string]string{"content-type": "application/json"},
				Body:       badRequest(err),
			}
		} else {
			w := newResponseWriter()
			h.ServeHTTP(w, r)
			resp = w.response()
		}
		endServerSpan(ctx, span, &resp)
		return resp, nil
	}
}

// badRequest is the JSON error body of a request the adapter cannot read
// (json.Marshal, not %q, so any bytes in the message stay valid JSON).
func badRequest(err error) string {
	type detail struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	}
	b, _ := json.Marshal(struct {
		Error detail `json:"error"`
	}{detail{Code: "bad_request", Message: err.Error()}})
	return string(b)
}

type requestContextKey struct{}

// RequestContext returns the API Gateway request context of a request served
// through Handler (request id, source IP, authorizer claims), if any.
func RequestContext(ctx context.Context) (events.APIGatewayV2HTTPRequestContext, bool) {
	rc, ok := ctx.Value(requestContextKey{}).(events.APIGatewayV2HTTPRequestContext)
	return rc, ok
}

// NewRequest converts an API Gateway v2 request into an *http.Request.
func NewRequest(ctx context.Context, req events.APIGatewayV2HTTPRequest) (*http.Request, error) {
	body := []byte(req.Body)
	if req.IsBase64Encoded {
		var err error
		if body, err = base64.StdEncoding.DecodeString(req.Body); err != nil {
			return nil, fmt.Errorf("apigw: body is marked base64 but does not decode: %w", err)
		}
	}
	method := req.RequestContext.HTTP.Method
	if method == "" {
		method = http.MethodGet
	}
	path := req.RawPath
	if path == "" {
		path = req.RequestContext.HTTP.Path
	}
	u := &url.URL{Path: path, RawQuery: req.RawQueryString}
	if unescaped, err := url.PathUnescape(path); err == nil {
		u.Path, u.RawPath = unescaped, path
	}
	ctx = context.WithValue(ctx, requestContextKey{}, req.RequestContext)
	r, err := http.NewRequestWithContext(ctx, method, u.String(), bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("apigw: build request: %w", err)
	}
	r.URL = u
	r.RequestURI = u.RequestURI()
	for k, v := range req.Headers {
		// API Gateway joins repeated headers with commas; keep them joined.
		r.Header.Set(k, v)
	}
	if len(req.Cookies) > 0 {
		r.Header.Set("Cookie", strings.Join(req.Cookies, "; "))
	}
	r.Host = req.RequestContext.DomainName
	r.RemoteAddr = req.RequestContext.HTTP.SourceIP
	r.ContentLength = int64(len(body))
	return r, nil
}

// responseWriter buffers a handler's response for the Lambda reply.
type responseWriter struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func newResponseWriter() *responseWriter { return &responseWriter{header: http.Header{}} }

func (w *responseWriter) Header() http.Header { return w.header }

func (w *responseWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.WriteHeader(http.StatusOK)
	}
	return w.body.Write(b)
}

func (w *responseWriter) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
}

func (w *responseWriter) response() events.APIGatewayV2HTTPResponse {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	resp := events.APIGatewayV2HTTPResponse{StatusCode: w.status, Headers: map[string]string{}}
	for k, vs := range w.header {
		if strings.EqualFold(k, "Set-Cookie") {
			resp.Cookies = append(resp.Cookies, vs...)
			continue
		}
		resp.Headers[strings.ToLower(k)] = strings.Join(vs, ",")
	}
	if isText(w.header.Get("Content-Type")) {
		resp.Body = w.body.String()
	} else if w.body.Len() > 0 {
		resp.Body = base64.StdEncoding.EncodeToString(w.body.Bytes())
		resp.IsBase64Encoded = true
	}
	return resp
}

// isText reports whether a response body of this content type can travel as
// a plain string; anything else is base64-encoded, as API Gateway expects.
func isText(contentType string) bool {
	if contentType == "" {
		return true
	}
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return false
	}
	return strings.HasPrefix(mt, "text/") || mt == "application/json" || strings.HasSuffix(mt, "+json") ||
		mt == "application/x-ndjson" || mt == "application/xml"
}

// RequestID is API Gateway's request id of a request served through
// Handler, "" for any other. Handlers that must not import Lambda types
// take it as a function (httpapi.APIConfig.RequestID).
func RequestID(ctx context.Context) string {
	rc, _ := RequestContext(ctx)
	return rc.RequestID
}
