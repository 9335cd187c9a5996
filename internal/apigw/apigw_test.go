package apigw

import (
	"context"
	"encoding/base64"
	"io"
	"net/http"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestHandlerRoundTripsAnAPIGatewayRequest(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /webhooks/{provider}", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		rc, ok := RequestContext(r.Context())
		assert.True(t, ok)
		assert.Equal(t, "req-1", rc.RequestID)
		assert.Equal(t, "stripe", r.PathValue("provider"))
		assert.Equal(t, "t=1,v1=abc", r.Header.Get("Stripe-Signature"))
		assert.Equal(t, "a=1&b=2", r.URL.RawQuery)
		w.Header().Set("Content-Type", "application/json")
		w.Header().Add("Set-Cookie", "a=b")
		w.WriteHeader(http.StatusAccepted)
		_, _ = w.Write(append([]byte(`{"got":`), append(body, '}')...))
	})
	mux.HandleFunc("GET /bin", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/octet-stream")
		_, _ = w.Write([]byte{0xff, 0x00})
	})
	h := Handler(mux)

	tests := []struct {
		name       string
		req        events.APIGatewayV2HTTPRequest
		status     int
		body       string
		base64Body bool
	}{
		{
			name: "json body, base64 in",
			req: events.APIGatewayV2HTTPRequest{
				RawPath: "/webhooks/stripe", RawQueryString: "a=1&b=2",
				Headers:         map[string]string{"stripe-signature": "t=1,v1=abc", "content-type": "application/json"},
				Body:            base64.StdEncoding.EncodeToString([]byte(`{"id":"evt_1"}`)),
				IsBase64Encoded: true,
				Version:         "2.0", RouteKey: "ANY /{proxy+}",
				RequestContext: events.APIGatewayV2HTTPRequestContext{RequestID: "req-1",
					HTTP: events.APIGatewayV2HTTPRequestContextHTTPDescription{Method: "POST", Path: "/webhooks/stripe"}},
			},
			status: 202, body: `{"got":{"id":"evt_1"}}`,
		},
		{
			name: "binary response is base64",
			req: events.APIGatewayV2HTTPRequest{RawPath: "/bin",
				Version: "2.0", RouteKey: "ANY /{proxy+}",
				RequestContext: events.APIGatewayV2HTTPRequestContext{HTTP: events.APIGatewayV2HTTPRequestContextHTTPDescription{Method: "GET"}}},
			status: 200, body: base64.StdEncoding.EncodeToString([]byte{0xff, 0x00}), base64Body: true,
		},
		{
			name: "unknown route",
			req: events.APIGatewayV2HTTPRequest{RawPath: "/nope",
				Version: "2.0", RouteKey: "ANY /{proxy+}",
				RequestContext: events.APIGatewayV2HTTPRequestContext{HTTP: events.APIGatewayV2HTTPRequestContextHTTPDescription{Method: "GET"}}},
			status: 404,
		},
		{
			name: "bad base64",
			req: events.APIGatewayV2HTTPRequest{RawPath: "/bin", Body: "%%%", IsBase64Encoded: true,
				Version: "2.0", RouteKey: "ANY /{proxy+}",
				RequestContext: events.APIGatewayV2HTTPRequestContext{HTTP: events.APIGatewayV2HTTPRequestContextHTTPDescription{Method: "POST"}}},
			status: 400,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp, err := h(context.Background(), tc.req)
			require.NoError(t, err)
			assert.Equal(t, tc.status, resp.StatusCode)
			if tc.body != "" {
				assert.Equal(t, tc.body, resp.Body)
			}
			assert.Equal(t, tc.base64Body, resp.IsBase64Encoded)
		})
	}
	resp, _ := h(context.Background(), tests[0].req)
	assert.Equal(t, []string{"a=b"}, resp.Cookies)
	assert.Equal(t, "application/json", resp.Headers["content-type"])
}
