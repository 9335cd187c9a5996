package apigw

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fixture reads testdata/name at the repository's root.
func fixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", filepath.FromSlash(name)))
	require.NoError(t, err)
	return b
}

// TestHTTPFunctionsFailInvocationsThatAreNotHTTPAPIRequests: the api and
// webhook functions (Function) serve API Gateway HTTP API requests of
// payload format 2.0 and fail any other invocation with an error naming
// what they received and what they expect, never an HTTP answer such as
// a redirect; nothing reaches the handler.
func TestHTTPFunctionsFailInvocationsThatAreNotHTTPAPIRequests(t *testing.T) {
	tests := []struct {
		name    string
		payload []byte
		got     string // "" : served
	}{
		{"HTTP API request", fixture(t, "apigw/api-get-events.json"), ""},
		{"HTTP API webhook", fixture(t, "apigw/webhooks-stripe.json"), ""},
		{"MSK batch", fixture(t, "msk/tasks-batch.json"), `a Kafka event (eventSource "aws:kafka")`},
		{"MSK poison batch", fixture(t, "msk/poison-batch.json"), `a Kafka event (eventSource "aws:kafka")`},
		{"scheduled event", fixture(t, "eventbridge/scheduled-retry-sweeper.json"),
			`an EventBridge event (source "aws.scheduler", detail-type "Scheduled Event")`},
		{"REST API (v1) request", fixture(t, "apigw/rest-v1-get-events.json"),
			`an API Gateway REST API or payload format 1.0 request (httpMethod "GET", resource "/api/{proxy+}")`},
		{"payload format 1.0", []byte(`{"version":"1.0","httpMethod":"POST","resource":"/webhooks/{provider}"}`), `payload format 1.0 request`},
		{"version 2.0 without http", []byte(`{"version":"2.0","routeKey":"$default"}`), "a payload format 2.0 event without a routeKey"},
		{"empty object", []byte(`{}`), "an object with the fields "},
		{"other object", []byte(`{"hello":"world","n":1}`), "an object with the fields hello, n"},
		{"array", []byte(`[1,2]`), "JSON that is not an object"},
		{"null", []byte(`null`), "JSON that is not an object"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			reached := false
			fn := Function(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				reached = true
				w.WriteHeader(http.StatusNoContent)
			}))
			resp, err := fn(context.Background(), json.RawMessage(tc.payload))
			if tc.got == "" {
				require.NoError(t, err)
				assert.Equal(t, http.StatusNoContent, resp.StatusCode)
				assert.True(t, reached)
				return
			}
			var inv *InvocationError
			require.ErrorAs(t, err, &inv)
			assert.Contains(t, err.Error(), tc.got)
			assert.Contains(t, err.Error(), `API Gateway HTTP API requests (payload format 2.0`, "it says what it expects")
			assert.False(t, reached, "nothing reaches the handler")
			assert.Zero(t, resp.StatusCode, "no HTTP answer")
		})
	}
}

// TestRESTRequestFixtureIsARESTRequest: the REST API fixture is what
// aws-lambda-go reads as one.
func TestRESTRequestFixtureIsARESTRequest(t *testing.T) {
	var req events.APIGatewayProxyRequest
	require.NoError(t, json.Unmarshal(fixture(t, "apigw/rest-v1-get-events.json"), &req))
	assert.Equal(t, "GET", req.HTTPMethod)
	assert.Equal(t, "/api/events", req.Path)
	assert.Equal(t, "GET", req.RequestContext.HTTPMethod)
}

// TestHandlerFailsAnEventWithoutTheHTTPAPIFields: the typed handler the
// local stack calls refuses a request missing what every HTTP API request
// has, as Function does, instead of serving it as GET /.
func TestHandlerFailsAnEventWithoutTheHTTPAPIFields(t *testing.T) {
	h := Handler(http.NotFoundHandler())
	_, err := h(context.Background(), events.APIGatewayV2HTTPRequest{})
	var inv *InvocationError
	require.ErrorAs(t, err, &inv)
	assert.Contains(t, err.Error(), `an event of version "", routeKey "" and method ""`)
}
