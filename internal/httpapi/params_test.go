package httpapi_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/history"
	"github.com/streamops/streamops/internal/httpapi"
	"github.com/streamops/streamops/internal/objects"
	"github.com/streamops/streamops/internal/status"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/testenv"
)

// documentedEnum is one enumerated query parameter of one operation, as
// the served document (read by kin-openapi, not by the handlers' reader)
// lists it.
type documentedEnum struct {
	route  string // "GET /api/dead-letters"
	param  string
	values []string
	list   bool // an array: comma-separated values
}

// documentedEnums lists every enumerated query parameter of every
// operation of the served document.
func documentedEnums(t *testing.T) []documentedEnum {
	doc := loadOpenAPI(t)
	var out []documentedEnum
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			for _, ref := range append(slices.Clone(item.Parameters), op.Parameters...) {
				p := ref.Value
				if p.In != openapi3.ParameterInQuery || p.Schema == nil {
					continue
				}
				e := documentedEnum{route: method + " " + path, param: p.Name}
				s := p.Schema.Value
				if s.Items != nil {
					s, e.list = s.Items.Value, true
				}
				for _, v := range s.Enum {
					e.values = append(e.values, v.(string))
				}
				if len(e.values) > 0 {
					out = append(out, e)
				}
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].route+" "+out[i].param < out[j].route+" "+out[j].param })
	return out
}

// enumStack is the API over a store holding a dead letter of every status
// and a webhook event of two statuses.
func enumStack(t *testing.T) (*apiStack, *testenv.Env) {
	env := testenv.New(t, testenv.Options{})
	ctx := context.Background()
	var dls []store.DeadLetterEntry
	for i, status := range status.DeadLetterAll() {
		dls = append(dls, store.DeadLetterEntry{Processor: "task-processor", Topic: events.TopicTasks, Offset: int64(i),
			Value: []byte("x"), Reason: "undecodable", Error: "not JSON", Status: status})
	}
	_, err := env.Store.InsertDeadLetters(ctx, dls...)
	require.NoError(t, err)
	for _, id := range []string{"evt_a", "evt_b"} {
		_, err := env.Store.InsertWebhookEvent(ctx, store.WebhookEvent{Provider: "stripe", ProviderEventID: id, EventType: "invoice.paid", Payload: store.JSONDoc(`{}`)})
		require.NoError(t, err)
	}
	require.NoError(t, env.Store.SetWebhookStatus(ctx, store.WebhookEventID("stripe", "evt_b"), status.WebhookSkipped, ""))
	return &apiStack{Env: env, handler: httpapi.API(httpapi.APIConfig{Store: env.Store, Logger: env.Logger,
		Requeuer: &history.Requeuer{Store: env.Store, Publisher: env.Bus},
		Exporter: &history.Exporter{Store: env.Store, Objects: objects.Files{Dir: t.TempDir()}, SpillDir: t.TempDir(), Logger: env.Logger},
		Auth:     httpapi.TokenAuth{AdminToken: adminToken}})}, env
}

// TestEveryEnumeratedQueryParameterIsValidated sends, for every enumerated
// query parameter of every route in the document, each allowed value (a
// 2xx) and values outside the enum (400 invalid_parameter naming the
// parameter and the allowed values).
func TestEveryEnumeratedQueryParameterIsValidated(t *testing.T) {
	enums := documentedEnums(t)
	var found []string
	for _, e := range enums {
		found = append(found, e.route+" "+e.param)
	}
	// The table is the document's; this says it is not empty by accident.
	assert.Equal(t, []string{
		"GET /api/dead-letters status",
		"GET /api/events event_types", "GET /api/events exclude_event_types",
		"GET /api/events/export event_types", "GET /api/events/export exclude_event_types", "GET /api/events/export format",
		"GET /api/partners/{partnerId}/deliveries status",
		"GET /api/webhook-events status",
	}, found)

	s, _ := enumStack(t)
	for _, e := range enums {
		method, path, _ := strings.Cut(e.route, " ")
		require.Equal(t, http.MethodGet, method)
		send := func(t *testing.T, query url.Values) response {
			r := httptest.NewRequest(method, path+"?"+query.Encode(), nil)
			r.Header.Set("Authorization", "Bearer "+adminToken)
			w := httptest.NewRecorder()
			s.handler.ServeHTTP(w, r)
			resp := response{status: w.Code}
			if w.Header().Get("Content-Type") == "application/json" {
				require.NoError(t, json.Unmarshal(w.Body.Bytes(), &resp.body), w.Body.String())
			}
			return resp
		}
		t.Run(e.route+" "+e.param, func(t *testing.T) {
			for _, v := range e.values {
				resp := send(t, url.Values{e.param: {v}})
				assert.Equal(t, http.StatusOK, resp.status, "%s=%s: %v", e.param, v, resp.body)
			}
			bad := []url.Values{{e.param: {"bogus"}}, {e.param: {strings.ToUpper(e.values[0])}}}
			if e.list { // items are trimmed: "a, b" is a list of two
				bad = append(bad, url.Values{e.param: {e.values[0] + ",bogus"}}, url.Values{e.param: {e.values[0], "bogus"}})
			} else {
				bad = append(bad, url.Values{e.param: {e.values[0] + " "}}, url.Values{e.param: {""}},
					url.Values{e.param: {e.values[0], e.values[len(e.values)-1]}})
			}
			for _, query := range bad {
				resp := send(t, query)
				require.Equal(t, http.StatusBadRequest, resp.status, "%s: %v", query.Encode(), resp.body)
				detail := resp.body["error"].(map[string]any)
				assert.Equal(t, "invalid_parameter", detail["code"])
				assert.Equal(t, e.param, detail["field"])
				allowed, _ := json.Marshal(detail["allowed"])
				want, _ := json.Marshal(e.values)
				assert.JSONEq(t, string(want), string(allowed), "the answer lists the allowed values")
				for _, v := range e.values {
					assert.Contains(t, detail["message"], v, "the message names the allowed values")
				}
			}
		})
	}
}

// TestDocumentedEnumsAreTheCodesOwnValues ties each enum of the document to
// the Go values it stands for, so the document changes with the code.
func TestDocumentedEnumsAreTheCodesOwnValues(t *testing.T) {
	doc := loadOpenAPI(t)
	enumOf := func(name string) []string {
		var out []string
		for _, v := range doc.Components.Schemas[name].Value.Enum {
			out = append(out, v.(string))
		}
		return out
	}
	var types []string
	for _, typ := range events.Types {
		types = append(types, string(typ))
	}
	assert.ElementsMatch(t, types, enumOf("EventType"))
	assert.Equal(t, status.DeadLetterAll(), enumOf("DeadLetterStatus"))
	assert.Equal(t, append(slices.Clone(status.DeadLetterAll()), httpapi.AllValues), enumOf("DeadLetterStatusFilter"))
	assert.Equal(t, status.OutboxAll(), enumOf("OutboxStatus"))
	byParam := map[string][]string{}
	for _, e := range documentedEnums(t) {
		byParam[e.route+" "+e.param] = e.values
	}
	assert.Equal(t, append(slices.Clone(status.WebhookAll()), httpapi.AllValues), byParam["GET /api/webhook-events status"])
	assert.Equal(t, []string{history.NDJSON, history.CSV}, byParam["GET /api/events/export format"])
}

// TestStatusAllMeansNoFilter: status=all (what `streamops dead-letters
// -status all` means) selects every status, as leaving it out does, on the
// listing and on the bulk requeue.
func TestStatusAllMeansNoFilter(t *testing.T) {
	s, env := enumStack(t)
	statuses := func(t *testing.T, query string) []string {
		resp := s.call(t, http.MethodGet, "/api/dead-letters"+query, "")
		require.Equal(t, http.StatusOK, resp.status, resp.body)
		var out []string
		for _, dl := range resp.body["deadLetters"].([]any) {
			out = append(out, dl.(map[string]any)["status"].(string))
		}
		sort.Strings(out)
		return out
	}
	every := slices.Sorted(slices.Values(status.DeadLetterAll()))
	assert.Equal(t, every, statuses(t, "?status=all"))
	assert.Equal(t, every, statuses(t, ""))
	assert.Equal(t, []string{"discarded"}, statuses(t, "?status=discarded"))

	webhookCount := func(t *testing.T, query string) int {
		resp := s.call(t, http.MethodGet, "/api/webhook-events"+query, "")
		require.Equal(t, http.StatusOK, resp.status, resp.body)
		return len(resp.body["webhookEvents"].([]any))
	}
	assert.Equal(t, 2, webhookCount(t, "?status=all"))
	assert.Equal(t, 1, webhookCount(t, "?status=skipped"))

	bad := s.call(t, http.MethodPost, "/api/dead-letters/requeue", `{"status":"closed"}`)
	require.Equal(t, http.StatusBadRequest, bad.status, bad.body)
	assert.Equal(t, "status", bad.body["error"].(map[string]any)["field"])
	resp := s.call(t, http.MethodPost, "/api/dead-letters/requeue", `{"status":"all"}`)
	require.Equal(t, http.StatusAccepted, resp.status, resp.body)
	assert.Equal(t, float64(len(status.DeadLetterAll())), resp.body["requeued"], "all: whatever the status")
	assert.Len(t, env.Records(t, events.TopicTasks), len(status.DeadLetterAll()))
}

// The enum check runs before the handler, for a partner token too.
func TestEnumCheckRunsForEveryCaller(t *testing.T) {
	s, _ := enumStack(t)
	h := httpapi.API(httpapi.APIConfig{Store: s.Store, Logger: s.Logger,
		Auth: httpapi.TokenAuth{AdminToken: adminToken, PartnerTokens: map[string]string{"acme-token": "acme"}}})
	r := httptest.NewRequest(http.MethodGet, "/api/events?event_types=workflow.teleported", nil)
	r.Header.Set("Authorization", "Bearer acme-token")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	assert.Equal(t, http.StatusBadRequest, w.Code, w.Body.String())
	assert.Contains(t, w.Body.String(), `"field":"event_types"`)
}
