package apigw_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/streamops/streamops/internal/apigw"
)

// FuzzAPIGatewayRequest feeds the adapter API Gateway v2 requests with
// fuzzed method, path, query, header, cookie and body (base64 or not): it
// never panics and never fails the invocation; a request it cannot turn
// into an *http.Request is a 400 with a JSON error body, and one it can
// reaches the handler with the body intact; one without a method is no
// HTTP API request and fails the invocation.
func FuzzAPIGatewayRequest(f *testing.F) {
	f.Add("POST", "/webhooks/stripe", "a=1&b=%zz", "content-type", "application/json", "c=1", `{"id":"evt_1"}`, false)
	f.Add("GET", "/api/events/%2F..%00", "event_types=a,b", "x", "\x00", "", "", false)
	f.Add("PUT", "", "", "", "", "", "!!!not base64", true)
	f.Fuzz(func(t *testing.T, method, path, query, hk, hv, cookie, body string, b64 bool) {
		var got []byte
		h := apigw.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			got, _ = io.ReadAll(r.Body)
			w.WriteHeader(http.StatusNoContent)
		}))
		resp, err := h(context.Background(), events.APIGatewayV2HTTPRequest{
			RawPath: path, RawQueryString: query, Headers: map[string]string{hk: hv}, Cookies: []string{cookie},
			Body: body, IsBase64Encoded: b64, Version: "2.0", RouteKey: "ANY /{proxy+}",
			RequestContext: events.APIGatewayV2HTTPRequestContext{HTTP: events.APIGatewayV2HTTPRequestContextHTTPDescription{Method: method, Path: path}},
		})
		if method == "" {
			if err == nil {
				t.Fatalf("a request without a method was served: %d", resp.StatusCode)
			}
			return
		}
		if err != nil {
			t.Fatalf("the invocation failed: %v", err)
		}
		switch resp.StatusCode {
		case http.StatusNoContent:
			if !b64 && string(got) != body {
				t.Fatalf("body changed on the way: %q != %q", got, body)
			}
		case http.StatusBadRequest:
			if !json.Valid([]byte(resp.Body)) {
				t.Fatalf("400 body is not JSON: %q", resp.Body)
			}
		default:
			t.Fatalf("status %d: %s", resp.StatusCode, resp.Body)
		}
	})
}
