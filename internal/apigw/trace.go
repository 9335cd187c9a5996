package apigw

import (
	"context"
	"net/http"
	"strconv"
	"strings"

	"github.com/aws/aws-lambda-go/events"
	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/streamops/streamops/internal/tracing"
)

// Response headers every answer names its trace with: X-Trace-Id, the id a
// caller quotes, and traceresponse (W3C Trace Context Level 2), the span
// that served the request. A handler may set X-Trace-Id itself when the
// work it answers for continues another trace (a rerun continues its
// workflow's); Handler then keeps it.
const (
	TraceIDHeader       = "X-Trace-Id"
	TraceresponseHeader = "traceresponse"
)

// startServerSpan continues the caller's traceparent and tracestate
// (header names in any case), or starts a trace, in the SERVER span of
// req, named by its route ("POST /webhooks/{provider}").
func startServerSpan(ctx context.Context, req events.APIGatewayV2HTTPRequest) (context.Context, trace.Span) {
	ctx = tracing.FromTraceparent(ctx, header(req.Headers, tracing.TraceparentHeader), header(req.Headers, tracing.TracestateHeader))
	method := req.RequestContext.HTTP.Method
	route := routeTemplate(req.RouteKey)
	name := method
	if route != "" {
		name = method + " " + route
	}
	ctx, span := tracing.Start(ctx, name, trace.WithSpanKind(trace.SpanKindServer))
	if span.IsRecording() {
		path := req.RawPath
		if path == "" {
			path = req.RequestContext.HTTP.Path
		}
		span.SetAttributes(semconv.HTTPRequestMethodKey.String(method), semconv.URLPath(path),
			semconv.UserAgentOriginal(req.RequestContext.HTTP.UserAgent), semconv.ClientAddress(req.RequestContext.HTTP.SourceIP))
		if route != "" {
			span.SetAttributes(semconv.HTTPRoute(route))
		}
	}
	return ctx, span
}

// endServerSpan records the answer's status on span (an error for 5xx, as
// the HTTP conventions ask of a server span), puts the trace headers on
// the answer and ends span.
func endServerSpan(ctx context.Context, span trace.Span, resp *events.APIGatewayV2HTTPResponse) {
	if resp.Headers == nil {
		resp.Headers = map[string]string{}
	}
	sc := trace.SpanContextFromContext(ctx)
	if _, set := resp.Headers[strings.ToLower(TraceIDHeader)]; !set {
		resp.Headers[strings.ToLower(TraceIDHeader)] = sc.TraceID().String()
	}
	resp.Headers[TraceresponseHeader] = "00-" + sc.TraceID().String() + "-" + sc.SpanID().String() + "-" + sc.TraceFlags().String()
	if span.IsRecording() {
		span.SetAttributes(semconv.HTTPResponseStatusCode(resp.StatusCode))
		if resp.StatusCode >= http.StatusInternalServerError {
			code := strconv.Itoa(resp.StatusCode)
			span.SetAttributes(semconv.ErrorTypeKey.String(code))
			span.SetStatus(codes.Error, "HTTP "+code)
		}
	}
	span.End()
}

// routeTemplate is the path template of an API Gateway route key
// ("POST /webhooks/{provider}" → "/webhooks/{provider}"), "" for the
// $default route, which has none.
func routeTemplate(routeKey string) string {
	if _, path, ok := strings.Cut(routeKey, " "); ok {
		return path
	}
	return ""
}

// header is the value of the request header name, matched without regard
// to case: API Gateway lowercases names, a test or proxy may not.
func header(h map[string]string, name string) string {
	if v, ok := h[name]; ok {
		return v
	}
	for k, v := range h {
		if strings.EqualFold(k, name) {
			return v
		}
	}
	return ""
}
