package apigw

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/aws/aws-lambda-go/events"
)

// PayloadVersion is the payload format of the API Gateway HTTP API
// requests the functions serve.
const PayloadVersion = "2.0"

// InvocationError is an invocation of an HTTP API function with an event
// that is not an API Gateway HTTP API request: a Kafka batch, a schedule,
// a REST API (payload format 1.0) request. The function fails the
// invocation with it rather than answer as if it were a request.
type InvocationError struct {
	// Got says what the function was invoked with.
	Got string
}

func (e *InvocationError) Error() string {
	return fmt.Sprintf("apigw: this function serves API Gateway HTTP API requests (payload format %s: \"version\":%q, a routeKey "+
		"and requestContext.http); it was invoked with %s", PayloadVersion, PayloadVersion, e.Got)
}

// Function is the Lambda handler of an HTTP API function (lambda.Start):
// Handler(h) for an API Gateway HTTP API request, and an *InvocationError
// naming what it received for any other event, read from the raw payload.
func Function(h http.Handler) func(context.Context, json.RawMessage) (events.APIGatewayV2HTTPResponse, error) {
	serve := Handler(h)
	return func(ctx context.Context, raw json.RawMessage) (events.APIGatewayV2HTTPResponse, error) {
		req, err := DecodeRequest(raw)
		if err != nil {
			return events.APIGatewayV2HTTPResponse{}, err
		}
		return serve(ctx, req)
	}
}

// DecodeRequest reads an invocation payload as an API Gateway HTTP API
// request (payload format 2.0); any other payload is an *InvocationError
// that says what it is.
func DecodeRequest(raw json.RawMessage) (events.APIGatewayV2HTTPRequest, error) {
	var req events.APIGatewayV2HTTPRequest
	if err := json.Unmarshal(raw, &req); err != nil || !isHTTPRequest(req) {
		return req, &InvocationError{Got: describe(raw)}
	}
	return req, nil
}

// isHTTPRequest reports whether req has what every HTTP API request
// (payload format 2.0) has.
func isHTTPRequest(req events.APIGatewayV2HTTPRequest) bool {
	return req.Version == PayloadVersion && req.RouteKey != "" && req.RequestContext.HTTP.Method != ""
}

// describe names the kind of event raw is, by the fields its source sets.
func describe(raw json.RawMessage) string {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		kind := "JSON that is not an object"
		if !json.Valid(raw) {
			kind = "a payload that is not JSON"
		}
		return kind
	}
	str := func(name string) string {
		var s string
		_ = json.Unmarshal(fields[name], &s)
		return s
	}
	switch source := str("eventSource"); {
	case source == "aws:kafka" || source == "SelfManagedKafka":
		return fmt.Sprintf("a Kafka event (eventSource %q), which the stream processors consume", source)
	case str("detail-type") != "":
		return fmt.Sprintf("an EventBridge event (source %q, detail-type %q)", str("source"), str("detail-type"))
	case str("httpMethod") != "" || str("version") == "1.0":
		return fmt.Sprintf("an API Gateway REST API or payload format 1.0 request (httpMethod %q, resource %q)", str("httpMethod"), str("resource"))
	case str("version") == PayloadVersion:
		return "a payload format 2.0 event without a routeKey or requestContext.http.method"
	case source != "":
		return fmt.Sprintf("an event of eventSource %q", source)
	}
	keys := slices.Sorted(maps.Keys(fields))
	if len(keys) > 8 {
		keys = append(keys[:8], "…")
	}
	return "an object with the fields " + strings.Join(keys, ", ")
}
