package local

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/aws/aws-lambda-go/events"
)

// HTTPFunction is a Lambda handler behind API Gateway's HTTP API (payload
// format 2.0), such as apigw.Handler(httpapi.API(…)).
type HTTPFunction func(context.Context, events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error)

// Route is one route of the HTTP API.
type Route struct {
	// Method is the HTTP method, or "ANY".
	Method string
	// Path is the route's path template as API Gateway writes it:
	// literal segments, {name} for one segment, and a last {name+} for
	// one or more ("/webhooks/{provider}", "/api/{proxy+}").
	Path string
	// Function serves the route.
	Function HTTPFunction
	// Name is the function's name, for logs.
	Name string
	// Timeout is the function's timeout: the invocation's deadline.
	Timeout time.Duration
}

// Key is the route key API Gateway sends: "POST /webhooks/{provider}".
func (r Route) Key() string { return r.Method + " " + r.Path }

// match reports whether the request path fits the route's template and
// returns the path parameters.
func (r Route) match(method, path string) (map[string]string, bool) {
	if r.Method != "ANY" && r.Method != method {
		return nil, false
	}
	tmpl := strings.Split(strings.Trim(r.Path, "/"), "/")
	segs := strings.Split(strings.TrimPrefix(path, "/"), "/")
	params := map[string]string{}
	for i, t := range tmpl {
		if strings.HasPrefix(t, "{") && strings.HasSuffix(t, "+}") && i == len(tmpl)-1 {
			rest := strings.Join(segs[min(i, len(segs)):], "/")
			if rest == "" {
				return nil, false
			}
			params[strings.TrimSuffix(strings.TrimPrefix(t, "{"), "+}")] = rest
			return params, true
		}
		if i >= len(segs) {
			return nil, false
		}
		if strings.HasPrefix(t, "{") && strings.HasSuffix(t, "}") {
			if segs[i] == "" {
				return nil, false
			}
			params[strings.Trim(t, "{}")] = segs[i]
			continue
		}
		if t != segs[i] {
			return nil, false
		}
	}
	if len(segs) != len(tmpl) {
		return nil, false
	}
	return params, true
}

// Limits of API Gateway's HTTP API and Lambda that the gateway enforces.
const (
	// maxPayload is Lambda's synchronous invocation payload limit: a
	// request whose event would be larger never reaches the function.
	maxPayload = 6 << 20
	// accountID and apiID stand in for the AWS account and the API's id.
	accountID = "000000000000"
	apiID     = "local"
)

// Gateway is an http.Handler that serves Routes as API Gateway's HTTP API
// does: it turns each request into the events.APIGatewayV2HTTPRequest API
// Gateway would send (rawPath, rawQueryString, lower-case headers,
// cookies, pathParameters from the route template, a base64 body for
// binary content, requestContext with method, path, source IP, request id
// and time, routeKey), JSON round-trips it as the Lambda runtime does,
// invokes the route's function with its timeout as deadline, and writes
// the function's response back. Unmatched requests get API Gateway's
// {"message":"Not Found"}; a function error, panic or timeout gets its
// {"message":"Internal Server Error"}.
type Gateway struct {
	routes []Route
	log    *slog.Logger
	now    func() time.Time

	// inflight counts invocations, including those still running after
	// their deadline answered 500, so Wait can let them end.
	inflight sync.WaitGroup
}

// NewGateway returns a Gateway serving routes; log may be nil.
func NewGateway(log *slog.Logger, routes ...Route) *Gateway {
	if log == nil {
		log = slog.Default()
	}
	return &Gateway{routes: routes, log: log, now: time.Now}
}

// Wait blocks until every invocation has returned, including those whose
// client already got a 500 because they outlived their timeout.
func (g *Gateway) Wait() { g.inflight.Wait() }

// ServeHTTP implements http.Handler.
func (g *Gateway) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := g.now()
	route, params, ok := g.route(r)
	if !ok {
		writeGatewayError(w, http.StatusNotFound, "Not Found")
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxPayload))
	if err != nil {
		writeGatewayError(w, http.StatusRequestEntityTooLarge, "Request Entity Too Large")
		return
	}
	req := NewAPIGatewayRequest(r, route.Key(), params, body, start)
	resp, err := g.invoke(r.Context(), route, req)
	log := g.log.With("function", route.Name, "routeKey", route.Key(), "path", req.RawPath,
		"requestId", req.RequestContext.RequestID, "latencyMs", g.now().Sub(start).Milliseconds())
	if err != nil {
		log.ErrorContext(r.Context(), "invocation failed; API Gateway answers 500", "error", err)
		writeGatewayError(w, http.StatusInternalServerError, "Internal Server Error")
		return
	}
	if err := writeAPIGatewayResponse(w, resp, req.RequestContext.RequestID); err != nil {
		log.ErrorContext(r.Context(), "malformed Lambda response; API Gateway answers 500", "error", err)
		writeGatewayError(w, http.StatusInternalServerError, "Internal Server Error")
		return
	}
	log.DebugContext(r.Context(), "request served", "status", resp.StatusCode)
}

func (g *Gateway) route(r *http.Request) (Route, map[string]string, bool) {
	for _, rt := range g.routes {
		if params, ok := rt.match(r.Method, r.URL.Path); ok {
			return rt, params, true
		}
	}
	return Route{}, nil, false
}

// invoke calls the route's function the way the Lambda runtime does: the
// event and the response travel as JSON, the invocation has the
// function's timeout as deadline and is not cancelled when the client
// goes away, and a panic is an invocation error.
func (g *Gateway) invoke(ctx context.Context, route Route, req events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
	var in events.APIGatewayV2HTTPRequest
	if err := roundTrip(req, &in); err != nil {
		return events.APIGatewayV2HTTPResponse{}, fmt.Errorf("encode the request event: %w", err)
	}
	type result struct {
		resp events.APIGatewayV2HTTPResponse
		err  error
	}
	done := make(chan result, 1)
	ictx, cancel := invocationContext(ctx, route.Name, route.Timeout)
	g.inflight.Add(1)
	go func() {
		defer g.inflight.Done()
		defer cancel()
		var res result
		res.err = protect(func() (err error) {
			res.resp, err = route.Function(ictx, in)
			return err
		})
		done <- res
	}()
	var res result
	select {
	case res = <-done:
	case <-ictx.Done():
		// The goroutine cancels ictx once it has sent its result.
		select {
		case res = <-done:
		default:
			return events.APIGatewayV2HTTPResponse{}, fmt.Errorf("%w after %s", errTimedOut, route.Timeout)
		}
	}
	if res.err != nil {
		return res.resp, res.err
	}
	var out events.APIGatewayV2HTTPResponse
	if err := roundTrip(res.resp, &out); err != nil {
		return out, fmt.Errorf("encode the response: %w", err)
	}
	return out, nil
}

// NewAPIGatewayRequest builds the event API Gateway's HTTP API sends a
// Lambda integration for r, matched by routeKey with path parameters
// params, with the request's body already read.
func NewAPIGatewayRequest(r *http.Request, routeKey string, params map[string]string, body []byte, at time.Time) events.APIGatewayV2HTTPRequest {
	rawPath := r.URL.EscapedPath()
	req := events.APIGatewayV2HTTPRequest{
		Version:        "2.0",
		RouteKey:       routeKey,
		RawPath:        rawPath,
		RawQueryString: r.URL.RawQuery,
		Headers:        map[string]string{},
		RequestContext: events.APIGatewayV2HTTPRequestContext{
			RouteKey:     routeKey,
			AccountID:    accountID,
			Stage:        "$default",
			RequestID:    newRequestID(),
			APIID:        apiID,
			DomainName:   r.Host,
			DomainPrefix: strings.SplitN(r.Host, ".", 2)[0],
			Time:         at.UTC().Format("02/Jan/2006:15:04:05 -0700"),
			TimeEpoch:    at.UnixMilli(),
			HTTP: events.APIGatewayV2HTTPRequestContextHTTPDescription{
				Method:    r.Method,
				Path:      rawPath,
				Protocol:  r.Proto,
				SourceIP:  sourceIP(r.RemoteAddr),
				UserAgent: r.UserAgent(),
			},
		},
	}
	if len(params) > 0 {
		req.PathParameters = make(map[string]string, len(params))
		for k, v := range params {
			if u, err := url.PathUnescape(v); err == nil {
				v = u
			}
			req.PathParameters[k] = v
		}
	}
	for name, values := range r.Header {
		name = strings.ToLower(name)
		if name == "cookie" {
			for _, v := range values {
				for c := range strings.SplitSeq(v, ";") {
					if c = strings.TrimSpace(c); c != "" {
						req.Cookies = append(req.Cookies, c)
					}
				}
			}
			continue
		}
		// API Gateway joins a repeated header's values with commas.
		req.Headers[name] = strings.Join(values, ",")
	}
	req.Headers["host"] = r.Host
	req.Headers["x-forwarded-for"] = req.RequestContext.HTTP.SourceIP
	req.Headers["x-forwarded-proto"] = "http"
	if _, port, err := net.SplitHostPort(r.Host); err == nil {
		req.Headers["x-forwarded-port"] = port
	}
	req.Headers["x-amzn-trace-id"] = fmt.Sprintf("Root=1-%08x-%s", at.Unix(), randomHex(12))
	if len(body) > 0 {
		req.Headers["content-length"] = strconv.Itoa(len(body))
	}
	if q, err := url.ParseQuery(r.URL.RawQuery); err == nil && len(q) > 0 {
		req.QueryStringParameters = make(map[string]string, len(q))
		for k, vs := range q {
			req.QueryStringParameters[k] = strings.Join(vs, ",")
		}
	}
	if len(body) > 0 {
		if isText(r.Header.Get("Content-Type")) && utf8.Valid(body) {
			req.Body = string(body)
		} else {
			req.Body, req.IsBase64Encoded = base64.StdEncoding.EncodeToString(body), true
		}
	}
	return req
}

// isText reports whether API Gateway passes a body of this content type as
// text; anything else (and a body without a content type) travels base64.
func isText(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return false
	}
	return strings.HasPrefix(mt, "text/") || mt == "application/json" || strings.HasSuffix(mt, "+json") ||
		mt == "application/x-ndjson" || mt == "application/xml" || strings.HasSuffix(mt, "+xml") ||
		mt == "application/x-www-form-urlencoded" || mt == "application/javascript"
}

// writeAPIGatewayResponse writes a Lambda's API Gateway v2 response: its
// status, headers, multi-value headers and cookies, and its body (decoded
// when base64).
func writeAPIGatewayResponse(w http.ResponseWriter, resp events.APIGatewayV2HTTPResponse, requestID string) error {
	body := []byte(resp.Body)
	if resp.IsBase64Encoded {
		var err error
		if body, err = base64.StdEncoding.DecodeString(resp.Body); err != nil {
			return fmt.Errorf("body is marked base64 but does not decode: %w", err)
		}
	}
	status := resp.StatusCode
	if status == 0 {
		status = http.StatusOK
	}
	if status < 100 || status > 599 {
		return fmt.Errorf("status code %d is not an HTTP status", status)
	}
	h := w.Header()
	for k, v := range resp.Headers {
		h.Set(k, v)
	}
	for k, vs := range resp.MultiValueHeaders {
		for _, v := range vs {
			h.Add(k, v)
		}
	}
	for _, c := range resp.Cookies {
		h.Add("Set-Cookie", c)
	}
	h.Set("Apigw-Requestid", requestID)
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body)
	return nil
}

// writeGatewayError is API Gateway's own answer when no function answers.
func writeGatewayError(w http.ResponseWriter, status int, message string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = fmt.Fprintf(w, `{"message":%q}`, message)
}

// roundTrip copies v into out through JSON, as the Lambda runtime passes
// events and responses, so a field that does not survive encoding shows.
func roundTrip(v, out any) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return json.NewDecoder(bytes.NewReader(raw)).Decode(out)
}

// protect runs fn, turning a panic into an error as the Lambda runtime
// reports it.
func protect(fn func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("runtime error: the function panicked: %v", r)
		}
	}()
	return fn()
}

// errTimedOut is how an invocation that outlived its timeout ends.
var errTimedOut = errors.New("task timed out")

func sourceIP(remoteAddr string) string {
	if host, _, err := net.SplitHostPort(remoteAddr); err == nil {
		return host
	}
	return remoteAddr
}

// newRequestID is an id shaped like API Gateway's ("JKJaXmPLvHcESHA=").
func newRequestID() string {
	b := make([]byte, 10)
	_, _ = rand.Read(b)
	return base64.StdEncoding.EncodeToString(b)
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return fmt.Sprintf("%x", b)
}
