package httpapi_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/fanout"
	"github.com/streamops/streamops/internal/history"
	"github.com/streamops/streamops/internal/httpapi"
	"github.com/streamops/streamops/internal/ingest"
	"github.com/streamops/streamops/internal/objects"
	"github.com/streamops/streamops/internal/opsevents"
	"github.com/streamops/streamops/internal/outbox"
	partnerregistry "github.com/streamops/streamops/internal/partners"
	"github.com/streamops/streamops/internal/provider"
	"github.com/streamops/streamops/internal/status"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/submit"
	"github.com/streamops/streamops/internal/testenv"
	"github.com/streamops/streamops/internal/traceview/traceviewtest"
	"github.com/streamops/streamops/internal/vault"
)

// loadOpenAPI parses the served document.
func loadOpenAPI(t *testing.T) *openapi3.T {
	t.Helper()
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(httpapi.OpenAPIDocument())
	require.NoError(t, err, "openapi.json does not load")
	return doc
}

func TestOpenAPIDocumentIsValidOpenAPI31(t *testing.T) {
	doc := loadOpenAPI(t)
	require.Equal(t, "3.1.0", doc.OpenAPI)
	require.True(t, doc.IsOpenAPI31OrLater())
	require.NoError(t, doc.Validate(context.Background()), "the document breaks OpenAPI 3.1")

	// Every component schema must also be a valid JSON Schema 2020-12 schema
	// (OpenAPI 3.1's dialect), checked against the meta-schema by a second
	// implementation.
	var raw any
	require.NoError(t, json.Unmarshal(httpapi.OpenAPIDocument(), &raw))
	compiler := jsonschema.NewCompiler()
	compiler.DefaultDraft(jsonschema.Draft2020)
	const base = "https://streamops.invalid/openapi.json"
	require.NoError(t, compiler.AddResource(base, raw))
	for name := range doc.Components.Schemas {
		_, err := compiler.Compile(base + "#/components/schemas/" + name)
		assert.NoError(t, err, "components.schemas.%s", name)
	}

	ids := map[string]string{}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			where := method + " " + path
			require.NotEmpty(t, op.OperationID, "%s has no operationId", where)
			require.NotContains(t, ids, op.OperationID, "%s reuses operationId of %s", where, ids[op.OperationID])
			ids[op.OperationID] = where
		}
	}
}

// TestOpenAPIDocumentsEveryRegisteredRoute reads the route patterns the
// package registers ("POST /api/workflows") from its source, so a route
// added without documenting it fails here.
func TestOpenAPIDocumentsEveryRegisteredRoute(t *testing.T) {
	doc := loadOpenAPI(t)
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	var registered []string
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		require.NoError(t, err)
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) == 0 {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok || (sel.Sel.Name != "Handle" && sel.Sel.Name != "HandleFunc") {
				return true
			}
			if lit, ok := call.Args[0].(*ast.BasicLit); ok && lit.Kind == token.STRING {
				pattern, err := strconv.Unquote(lit.Value)
				require.NoError(t, err)
				registered = append(registered, pattern)
			}
			return true
		})
	}
	require.NotEmpty(t, registered)
	for _, pattern := range registered {
		method, path, ok := strings.Cut(pattern, " ")
		require.True(t, ok, "route %q names no method", pattern)
		item := doc.Paths.Value(path)
		require.NotNil(t, item, "route %q is not in openapi.json", pattern)
		assert.NotNil(t, item.GetOperation(method), "route %q is not in openapi.json", pattern)
	}
}

// contract checks real exchanges against the document and remembers which
// operation answered which status.
type contract struct {
	doc     *openapi3.T
	router  routers.Router
	checked map[string]map[int]bool // "GET /api/events" -> statuses seen
	unwired map[string]bool         // operations whose route is not registered yet
}

func newContract(t *testing.T) *contract {
	doc := loadOpenAPI(t)
	router, err := legacy.NewRouter(doc)
	require.NoError(t, err)
	// An inline export is a stream of envelopes; the library knows no
	// decoder for it, so it is checked as text and each line separately.
	openapi3filter.RegisterBodyDecoder("application/x-ndjson", openapi3filter.PlainBodyDecoder)
	t.Cleanup(func() { openapi3filter.UnregisterBodyDecoder("application/x-ndjson") })
	return &contract{doc: doc, router: router, checked: map[string]map[int]bool{}, unwired: map[string]bool{}}
}

// exchange sends r to h and checks the answer: the status must be want, and
// status, content type, headers and body must be what the document says
// for r's operation. A request answered 2xx must itself match the
// document. With mayBeUnwired, an answer of 404 route_not_found skips the
// test instead (a documented route not registered yet).
func (c *contract) exchange(t *testing.T, h http.Handler, r *http.Request, want int, mayBeUnwired bool) *httptest.ResponseRecorder {
	t.Helper()
	body, err := io.ReadAll(r.Body)
	require.NoError(t, err)
	route, params, err := c.router.FindRoute(r)
	require.NoError(t, err, "no operation documents %s %s", r.Method, r.URL.Path)
	key := route.Method + " " + route.Path
	reqInput := &openapi3filter.RequestValidationInput{
		Request: withBody(r, body), PathParams: params, Route: route,
		Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc, MultiError: true},
	}

	w := httptest.NewRecorder()
	func() {
		defer func() {
			if p := recover(); p != nil {
				t.Fatalf("%s %s panicked: %v", r.Method, r.URL, p)
			}
		}()
		h.ServeHTTP(w, withBody(r, body))
	}()
	if mayBeUnwired && w.Code == http.StatusNotFound && strings.Contains(w.Body.String(), `"route_not_found"`) {
		c.unwired[key] = true
		t.Skipf("%s is documented but not registered yet (404 route_not_found)", key)
	}
	require.Equal(t, want, w.Code, "%s %s answered %s", r.Method, r.URL, w.Body)
	if want/100 == 2 {
		require.NoError(t, openapi3filter.ValidateRequest(context.Background(), reqInput),
			"the handler accepted %s %s but the document rejects the request", r.Method, r.URL)
	}

	resInput := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: reqInput, Status: w.Code, Header: w.Header(),
		Options: &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true},
	}
	resInput.SetBodyBytes(w.Body.Bytes())
	require.NoError(t, openapi3filter.ValidateResponse(context.Background(), resInput),
		"%s %s: the %d answer does not match the document:\n%s", r.Method, r.URL, w.Code, w.Body)
	if strings.HasPrefix(w.Header().Get("Content-Type"), "application/x-ndjson") {
		c.checkEnvelopeLines(t, w.Body.Bytes())
	}
	if c.checked[key] == nil {
		c.checked[key] = map[int]bool{}
	}
	c.checked[key][w.Code] = true
	return w
}

// checkEnvelopeLines checks each NDJSON line against the Envelope schema.
func (c *contract) checkEnvelopeLines(t *testing.T, body []byte) {
	t.Helper()
	envelope := c.doc.Components.Schemas["Envelope"].Value
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	lines := 0
	for sc.Scan() {
		var v any
		require.NoError(t, json.Unmarshal(sc.Bytes(), &v), "line %d is not JSON", lines+1)
		require.NoError(t, envelope.VisitJSON(v, openapi3.EnableJSONSchema2020()), "line %d is not an Envelope", lines+1)
		lines++
	}
	require.NoError(t, sc.Err())
	require.Positive(t, lines, "an NDJSON export with no events")
}

// requireCoverage fails for a documented operation without a checked 2xx,
// or without a checked 4xx when it documents one.
func (c *contract) requireCoverage(t *testing.T) {
	t.Helper()
	for path, item := range c.doc.Paths.Map() {
		for method, op := range item.Operations() {
			key := method + " " + path
			if c.unwired[key] {
				t.Logf("%s: not registered yet, not checked", key)
				continue
			}
			seen := c.checked[key]
			classSeen := func(class int) bool {
				for s := range seen {
					if s/100 == class {
						return true
					}
				}
				return false
			}
			assert.True(t, classSeen(2), "%s: no success answer was checked", key)
			var unchecked []string
			documents4xx := false
			for code := range op.Responses.Map() {
				if code[0] == '4' {
					documents4xx = true
				}
				if s, err := strconv.Atoi(code); err == nil && !seen[s] {
					unchecked = append(unchecked, code)
				}
			}
			if documents4xx {
				assert.True(t, classSeen(4), "%s: no error answer was checked", key)
			}
			slices.Sort(unchecked)
			if len(unchecked) > 0 {
				t.Logf("%s: documented but not provoked: %s", key, strings.Join(unchecked, ", "))
			}
		}
	}
}

func withBody(r *http.Request, body []byte) *http.Request {
	r2 := r.Clone(r.Context())
	r2.Body = io.NopCloser(bytes.NewReader(body))
	r2.ContentLength = int64(len(body))
	return r2
}

// caller sends requests to one handler through the contract.
type caller struct {
	c *contract
	h http.Handler
}

func request(method, target, body, token string, header ...string) *http.Request {
	r := httptest.NewRequest(method, target, strings.NewReader(body))
	if body != "" {
		r.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		r.Header.Set("Authorization", "Bearer "+token)
	}
	for i := 0; i+1 < len(header); i += 2 {
		r.Header.Set(header[i], header[i+1])
	}
	return r
}

func (cl caller) send(t *testing.T, r *http.Request, want int) *httptest.ResponseRecorder {
	t.Helper()
	return cl.c.exchange(t, cl.h, r, want, false)
}

func (cl caller) get(t *testing.T, token, target string, want int) *httptest.ResponseRecorder {
	t.Helper()
	return cl.send(t, request(http.MethodGet, target, "", token), want)
}

func (cl caller) post(t *testing.T, token, target, body string, want int, header ...string) *httptest.ResponseRecorder {
	t.Helper()
	return cl.send(t, request(http.MethodPost, target, body, token, header...), want)
}

func decodeAs[T any](t *testing.T, w *httptest.ResponseRecorder) T {
	t.Helper()
	var v T
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &v), w.Body.String())
	return v
}

// unavailableSecrets is a secret store that cannot be reached.
type unavailableSecrets struct{}

func (unavailableSecrets) Secrets(context.Context, string) ([]string, error) {
	return nil, errors.New("secrets manager: connection refused")
}

// TestOpenAPIResponsesMatchTheDocument sends real requests to every route,
// built on the real store, broker and services, and checks each answer
// against openapi.json: success and the typical errors of each.
func TestOpenAPIResponsesMatchTheDocument(t *testing.T) {
	c := newContract(t)
	env := testenv.New(t, testenv.Options{})
	ctx := context.Background()
	reg, err := provider.LoadProviders("")
	require.NoError(t, err)
	// Every provider has a secret but standard: its deliveries are 500
	// provider_misconfigured.
	ing, err := ingest.New(ingest.Config{Providers: reg, Store: env.Store, Emitter: env.Emitter, Logger: env.Logger,
		Secrets: provider.EnvSecrets{Lookup: func(k string) string {
			return map[string]string{"WEBHOOK_SECRET_STRIPE": "whsec_stripe_old,whsec_stripe_test",
				"WEBHOOK_SECRET_GITHUB": "gh-secret", "WEBHOOK_SECRET_ACME": "acme-secret"}[k]
		}}})
	require.NoError(t, err)
	ingDown, err := ingest.New(ingest.Config{Providers: reg, Secrets: unavailableSecrets{}, Store: env.Store, Emitter: env.Emitter, Logger: env.Logger})
	require.NoError(t, err)
	sub, err := submit.New(env.Store, env.Emitter, submit.Limits{}, nil, env.Logger)
	require.NoError(t, err)
	vlt, err := vault.NewInMemory(env.Store)
	require.NoError(t, err)
	sub = sub.WithVault(vlt)
	hooks := caller{c, httpapi.Webhooks(ing, env.Logger)}
	hooksDown := caller{c, httpapi.Webhooks(ingDown, env.Logger)}
	replayer := &history.Replayer{Store: env.Store, Emitter: env.Emitter, Logger: env.Logger}
	// echo is a partner whose endpoint listens and verifies the test send.
	echoSecret := testSecret("echo")
	echo := newVerifyingPartner(t, http.StatusAccepted, "received", nil, echoSecret)
	partners := maps.Clone(testPartners)
	partners["echo"] = httpapi.PartnerConfig{ID: "echo", Name: "Echo", URL: echo.srv.URL}
	registry, err := partnerregistry.New(partnerregistry.Config{Store: env.Store, Wrapper: vlt.Wrapper(), Logger: env.Logger})
	require.NoError(t, err)
	api := caller{c, httpapi.API(httpapi.APIConfig{Submit: sub, Store: env.Store, Router: ing, Logger: env.Logger,
		Registry:      registry,
		Replayer:      replayer,
		Requeuer:      &history.Requeuer{Store: env.Store, Publisher: env.Bus},
		Partners:      partners,
		Subscriptions: fanout.Static{"acme": {{EventTypes: []string{"workflow.*"}}}},
		Sender:        relaySender{outbox.PartnerDeliverer{Secrets: staticSecrets{"echo": {echoSecret}, "acme": {echoSecret}}, Timeout: 2 * time.Second}},
		Subjects:      vlt, Operations: opsevents.New(env.Emitter, env.Logger),
		// A small inline limit, so one export answers inline and a larger one with a link.
		Exporter: &history.Exporter{Store: env.Store, Objects: objects.Files{Dir: t.TempDir()},
			InlineLimit: 2 << 10, SpillDir: t.TempDir(), Logger: env.Logger},
		Auth: httpapi.TokenAuth{AdminToken: adminToken, PartnerTokens: map[string]string{"acme-token": "acme", "beta-token": "beta"}}})}

	// Every operation under a bearer scheme answers 401 without a token, and
	// each that documents 403 answers it to a partner token out of scope.
	t.Run("auth", func(t *testing.T) {
		for path, item := range c.doc.Paths.Map() {
			for method, op := range item.Operations() {
				security := c.doc.Security
				if op.Security != nil {
					security = *op.Security
				}
				if len(security) == 0 {
					continue
				}
				t.Run(method+" "+path, func(t *testing.T) {
					target := strings.NewReplacer("{partnerId}", "acme", "{id}", "x").Replace(path)
					c.exchange(t, api.h, request(method, target, "", ""), http.StatusUnauthorized, true)
					if op.Responses.Value("403") != nil {
						token := "acme-token"
						if strings.Contains(path, "{partnerId}") {
							token = "beta-token"
						}
						c.exchange(t, api.h, request(method, target, "", token), http.StatusForbidden, true)
					}
				})
			}
		}
	})

	invoice := testenv.Testdata(t, "webhooks/stripe-invoice-finalized.json")
	var stripeEventID, acmeEventID string
	t.Run("POST /webhooks/{provider}", func(t *testing.T) {
		w := hooks.send(t, signedDelivery(t, reg, "stripe", invoice, "whsec_stripe_test", provider.SignOptions{}), http.StatusAccepted)
		stripeEventID = decodeAs[ingest.Receipt](t, w).WebhookEventID
		hooks.send(t, signedDelivery(t, reg, "stripe", invoice, "whsec_stripe_old", provider.SignOptions{}), http.StatusOK)
		w = hooks.send(t, signedDelivery(t, reg, "acme", testenv.Testdata(t, "webhooks/acme-order.json"), "acme-secret", provider.SignOptions{}), http.StatusAccepted)
		acmeEventID = decodeAs[ingest.Receipt](t, w).WebhookEventID

		hooks.send(t, signedDelivery(t, reg, "github", []byte(`{"ref":`), "gh-secret", provider.SignOptions{ID: "d-1", EventType: "push"}), http.StatusBadRequest)
		hooks.send(t, httptest.NewRequest(http.MethodPost, "/webhooks/stripe", bytes.NewReader(invoice)), http.StatusUnauthorized)
		stale := provider.SignOptions{Now: time.Now().Add(-time.Hour)}
		hooks.send(t, signedDelivery(t, reg, "stripe", invoice, "whsec_stripe_test", stale), http.StatusUnauthorized)
		hooks.send(t, httptest.NewRequest(http.MethodPost, "/webhooks/nobody", bytes.NewReader(invoice)), http.StatusNotFound)
		big := []byte(`{"id":"evt_big","type":"invoice.paid","pad":"` + strings.Repeat("x", 1<<20) + `"}`)
		hooks.send(t, signedDelivery(t, reg, "stripe", big, "whsec_stripe_test", provider.SignOptions{}), http.StatusRequestEntityTooLarge)
		std := testenv.Testdata(t, "webhooks/standard-event.json")
		hooks.send(t, signedDelivery(t, reg, "standard", std, secrets["WEBHOOK_SECRET_STANDARD"], provider.SignOptions{ID: "msg_1"}), http.StatusInternalServerError)
		hooksDown.send(t, signedDelivery(t, reg, "stripe", invoice, "whsec_stripe_test", provider.SignOptions{}), http.StatusServiceUnavailable)
	})

	var workflowID, taskID string
	tooBig := `{"name":"` + strings.Repeat("x", 2<<20) + `"}` // over the 1 MiB API body limit
	wfBody := `{"name":"Nightly","steps":["validate","transform"],"priority":"low","input":{"records":[{"id":1}]}}`
	t.Run("POST /api/workflows", func(t *testing.T) {
		w := api.post(t, adminToken, "/api/workflows", wfBody, http.StatusCreated, "Idempotency-Key", "contract-wf")
		workflowID = decodeAs[submit.WorkflowReceipt](t, w).WorkflowID
		api.post(t, adminToken, "/api/workflows", wfBody, http.StatusCreated, "Idempotency-Key", "contract-wf")
		api.post(t, adminToken, "/api/workflows", `{"name":"Other","steps":["validate"],"priority":"low"}`, http.StatusUnprocessableEntity, "Idempotency-Key", "contract-wf")
		api.post(t, adminToken, "/api/workflows", `{"name":"x","steps":["teleport"],"priority":"low"}`, http.StatusBadRequest)
		api.post(t, adminToken, "/api/workflows", `{"name":`, http.StatusBadRequest)
		api.post(t, adminToken, "/api/workflows", tooBig, http.StatusRequestEntityTooLarge)
	})

	t.Run("GET /api/workflows/{id}", func(t *testing.T) {
		api.get(t, adminToken, "/api/workflows/"+workflowID, http.StatusOK)
		// Further along: a finished step with its result, the next one running.
		started := time.Now().UTC()
		_, err := env.Store.SaveWorkflowCheckpoints(ctx, store.WorkflowCheckpoint{Workflow: store.Workflow{
			WorkflowID: workflowID, Status: status.WorkflowProcessing, CurrentStepIndex: 1, StartedAt: &started,
			StepResults: []store.StepProgress{{StepName: "validate", StepIndex: 0, CompletedAt: started, Duration: 12, Result: store.JSONDoc(`{"valid":1}`)}},
		}})
		require.NoError(t, err)
		w := api.get(t, adminToken, "/api/workflows/"+workflowID, http.StatusOK)
		assert.Contains(t, w.Body.String(), `"status":"running"`)
		api.get(t, adminToken, "/api/workflows/wf-00000000-0000-4000-8000-000000000000", http.StatusNotFound)
	})

	t.Run("POST /api/tasks", func(t *testing.T) {
		w := api.post(t, adminToken, "/api/tasks", `{"type":"data_export","data":{"format":"csv"},"maxRetries":2}`, http.StatusCreated, "Idempotency-Key", "contract-task")
		taskID = decodeAs[submit.TaskReceipt](t, w).TaskID
		api.post(t, adminToken, "/api/tasks", `{"type":"data_export","data":{"format":"json"}}`, http.StatusUnprocessableEntity, "Idempotency-Key", "contract-task")
		api.post(t, adminToken, "/api/tasks", `{"type":"fax","data":{}}`, http.StatusBadRequest)
		api.post(t, adminToken, "/api/tasks", tooBig, http.StatusRequestEntityTooLarge)
		api.post(t, adminToken, "/api/tasks", `{"type":"data_export","data":{},"retries":2}`, http.StatusBadRequest)
	})

	t.Run("GET /api/tasks/{id}", func(t *testing.T) {
		api.get(t, adminToken, "/api/tasks/"+taskID, http.StatusOK)
		next := time.Now().Add(time.Minute).UTC()
		_, err := env.Store.SaveTaskOutcomes(ctx, store.TaskOutcome{Attempt: 0, Task: store.Task{TaskID: taskID, Status: status.TaskFailed,
			RetryCount: 1, NextRetryAt: &next, LastError: &events.TaskError{Code: "EXPORT_ERROR", Message: "disk full", Retryable: true}}})
		require.NoError(t, err)
		w := api.get(t, adminToken, "/api/tasks/"+taskID, http.StatusOK)
		assert.Contains(t, w.Body.String(), `"lastError"`)
		api.get(t, adminToken, "/api/tasks/task-00000000-0000-4000-8000-000000000000", http.StatusNotFound)
	})

	var createdEventID string
	t.Run("GET /api/events", func(t *testing.T) {
		w := api.get(t, adminToken, "/api/events?limit=2", http.StatusOK)
		page := decodeAs[struct {
			Events     []events.Envelope `json:"events"`
			NextCursor string            `json:"nextCursor"`
		}](t, w)
		require.Len(t, page.Events, 2)
		require.NotEmpty(t, page.NextCursor, "more than two events are stored")
		api.get(t, adminToken, "/api/events?limit=1000&cursor="+page.NextCursor, http.StatusOK)
		w = api.get(t, adminToken, "/api/events?event_types=workflow.created,task.created&service_name=api-gateway&start_time="+
			url.QueryEscape(time.Now().Add(-time.Hour).Format(time.RFC3339)), http.StatusOK)
		page = decodeAs[struct {
			Events     []events.Envelope `json:"events"`
			NextCursor string            `json:"nextCursor"`
		}](t, w)
		require.Len(t, page.Events, 2, "the submitted workflow and task")
		createdEventID = page.Events[0].EventID
		api.get(t, adminToken, "/api/events?execution_id="+stripeEventID, http.StatusOK)
		w = api.get(t, "acme-token", "/api/events", http.StatusOK)
		assert.Contains(t, w.Body.String(), acmeEventID, "acme sees the events of its own delivery")

		api.get(t, adminToken, "/api/events?limit=0", http.StatusBadRequest)
		api.get(t, adminToken, "/api/events?event_types=workflow.teleported", http.StatusBadRequest)
		api.get(t, adminToken, "/api/events?start_time=yesterday", http.StatusBadRequest)
		api.get(t, adminToken, "/api/events?cursor=not-a-cursor", http.StatusBadRequest)
	})

	t.Run("GET /api/events/search", func(t *testing.T) {
		w := api.get(t, adminToken, "/api/events/search?q=workflow.created&limit=5", http.StatusOK)
		assert.Contains(t, w.Body.String(), `"workflow.created"`)
		api.get(t, "beta-token", "/api/events/search?q=workflow", http.StatusOK)
		api.get(t, adminToken, "/api/events/search?q=", http.StatusBadRequest)
	})

	t.Run("GET /api/events/export", func(t *testing.T) {
		w := api.get(t, adminToken, "/api/events/export?format=ndjson&event_ids="+createdEventID, http.StatusOK)
		assert.Equal(t, "application/x-ndjson", w.Header().Get("Content-Type"))
		w = api.get(t, adminToken, "/api/events/export?format=csv&event_types=workflow.created,task.created&service_name=api-gateway", http.StatusOK)
		assert.Equal(t, "text/csv", w.Header().Get("Content-Type"))
		w = api.get(t, adminToken, "/api/events/export", http.StatusOK)
		assert.Equal(t, "application/json", w.Header().Get("Content-Type"), "every event is over the inline limit: a link")
		api.get(t, adminToken, "/api/events/export?format=xml", http.StatusBadRequest)
	})

	var replayID string
	t.Run("POST /api/replays", func(t *testing.T) {
		filter := fmt.Sprintf(`{"event_ids":[%q]}`, createdEventID)
		w := api.post(t, adminToken, "/api/replays", `{"dryRun":true,"filter":`+filter+`}`, http.StatusOK)
		assert.Contains(t, w.Body.String(), `"count":1`)
		w = api.post(t, adminToken, "/api/replays", `{"filter":`+filter+`,"ratePerSecond":1000}`, http.StatusAccepted)
		replayID = decodeAs[store.ReplaySession](t, w).ID
		api.post(t, adminToken, "/api/replays", `{"filter":{}}`, http.StatusBadRequest)
		api.post(t, adminToken, "/api/replays", tooBig, http.StatusRequestEntityTooLarge)
		api.post(t, adminToken, "/api/replays", `{"filter":{"eventTypes":["task.failed"]}}`, http.StatusBadRequest)
		api.post(t, adminToken, "/api/replays", `{"filter":`+filter+`,"ratePerSecond":0}`, http.StatusBadRequest)
		api.post(t, adminToken, "/api/replays", `{"filter":`+filter+`,"ratePerSecond":"x"}`, http.StatusBadRequest)
	})

	t.Run("GET /api/replays/{id}", func(t *testing.T) {
		api.get(t, adminToken, "/api/replays/"+replayID, http.StatusOK)
		api.get(t, adminToken, "/api/replays/replay-nope", http.StatusNotFound)
		_, err := replayer.RunDue(ctx)
		require.NoError(t, err)
		w := api.get(t, adminToken, "/api/replays/"+replayID, http.StatusOK)
		assert.Contains(t, w.Body.String(), `"status":"completed"`)
	})

	t.Run("GET /api/replays", func(t *testing.T) {
		w := api.get(t, adminToken, "/api/replays?limit=5", http.StatusOK)
		assert.Contains(t, w.Body.String(), replayID)
		api.get(t, adminToken, "/api/replays", http.StatusOK)
		api.get(t, adminToken, "/api/replays?limit=101", http.StatusBadRequest)
	})

	t.Run("POST /api/replays/{id}/cancel", func(t *testing.T) {
		api.post(t, adminToken, "/api/replays/"+replayID+"/cancel", "", http.StatusConflict)
		w := api.post(t, adminToken, "/api/replays", fmt.Sprintf(`{"filter":{"event_ids":[%q]}}`, createdEventID), http.StatusAccepted)
		running := decodeAs[store.ReplaySession](t, w).ID
		w = api.post(t, adminToken, "/api/replays/"+running+"/cancel", "", http.StatusOK)
		assert.Contains(t, w.Body.String(), `"status":"cancelled"`)
		api.post(t, adminToken, "/api/replays/"+running+"/cancel", "", http.StatusOK)
		api.post(t, adminToken, "/api/replays/replay-nope/cancel", "", http.StatusNotFound)
	})

	t.Run("GET /api/webhook-events", func(t *testing.T) {
		w := api.get(t, adminToken, "/api/webhook-events?limit=1", http.StatusOK)
		page := decodeAs[struct {
			NextCursor string `json:"nextCursor"`
		}](t, w)
		require.NotEmpty(t, page.NextCursor)
		api.get(t, adminToken, "/api/webhook-events?provider=stripe&status=processing&cursor="+page.NextCursor, http.StatusOK)
		api.get(t, adminToken, "/api/webhook-events?from=yesterday", http.StatusBadRequest)
		api.get(t, adminToken, "/api/webhook-events?status=bogus", http.StatusBadRequest)
		api.get(t, adminToken, "/api/webhook-events?status=all", http.StatusOK)
	})

	t.Run("POST /api/webhook-events/{id}/retry", func(t *testing.T) {
		retry := "/api/webhook-events/" + stripeEventID + "/retry"
		api.post(t, adminToken, retry, "", http.StatusAccepted)
		api.post(t, adminToken, "/api/webhook-events/nope/retry", "", http.StatusNotFound)
		api.post(t, adminToken, retry, `{"newAttempt":true,"reason":"still running"}`, http.StatusConflict)
		api.post(t, adminToken, retry, `{"newAttempt":true}`, http.StatusBadRequest)
		api.post(t, adminToken, retry, `{"reason":"no attempt asked"}`, http.StatusBadRequest)
		row, err := env.Store.GetWebhookEvent(ctx, stripeEventID)
		require.NoError(t, err)
		_, err = env.Store.SettleWebhookEvents(ctx, store.WebhookOutcome{EventID: stripeEventID, RunID: row.RunID, Status: status.WebhookCompleted})
		require.NoError(t, err)
		w := api.post(t, adminToken, retry, "", http.StatusConflict)
		assert.Contains(t, w.Body.String(), `"status":"completed"`)
		w = api.post(t, adminToken, retry, `{"newAttempt":true,"reason":"records fixed upstream"}`, http.StatusAccepted)
		assert.Contains(t, w.Body.String(), `"attempt":2`)
		assert.Contains(t, w.Body.String(), `"reason":"records fixed upstream"`)
	})

	t.Run("GET /api/partners/{partnerId}/events", func(t *testing.T) {
		w := api.get(t, "acme-token", "/api/partners/acme/events", http.StatusOK)
		assert.Contains(t, w.Body.String(), `"event_direction":"IN"`)
		api.get(t, adminToken, "/api/partners/beta/events", http.StatusOK)
	})

	t.Run("GET /api/partners/{partnerId}/endpoint", func(t *testing.T) {
		w := api.get(t, "acme-token", "/api/partners/acme/endpoint", http.StatusOK)
		assert.Contains(t, w.Body.String(), `"deliveryUrl":"https://REDACTED@hooks.acme.example/streamops?key=REDACTED"`)
		api.get(t, adminToken, "/api/partners/beta/endpoint", http.StatusOK)
	})

	t.Run("POST /api/partners/{partnerId}/pause", func(t *testing.T) {
		w := api.post(t, adminToken, "/api/partners/acme/pause", `{"reason":"maintenance"}`, http.StatusOK)
		assert.Contains(t, w.Body.String(), `"paused":true`)
		api.post(t, adminToken, "/api/partners/acme/pause", "", http.StatusOK)
		api.post(t, adminToken, "/api/partners/acme/pause", `{"why":"x"}`, http.StatusBadRequest)
		api.post(t, adminToken, "/api/partners/nope/pause", "", http.StatusNotFound)
	})

	t.Run("POST /api/partners/{partnerId}/resume", func(t *testing.T) {
		w := api.post(t, adminToken, "/api/partners/acme/resume", "", http.StatusOK)
		assert.Contains(t, w.Body.String(), `"paused":false`)
		api.post(t, adminToken, "/api/partners/acme/resume", `{}`, http.StatusOK)
		api.post(t, adminToken, "/api/partners/acme/resume", `[`, http.StatusBadRequest)
		api.post(t, adminToken, "/api/partners/nope/resume", "", http.StatusNotFound)
	})

	t.Run("GET /api/event-types", func(t *testing.T) {
		w := api.get(t, adminToken, "/api/event-types", http.StatusOK)
		assert.Contains(t, w.Body.String(), `"eventType":"workflow.completed"`)
		api.get(t, "acme-token", "/api/event-types", http.StatusOK)
	})

	t.Run("POST /api/partners/{partnerId}/test", func(t *testing.T) {
		w := api.post(t, adminToken, "/api/partners/echo/test", "", http.StatusOK)
		assert.Contains(t, w.Body.String(), `"delivered":true`)
		api.post(t, adminToken, "/api/partners/echo/test", `{"eventType":"task.created"}`, http.StatusOK)
		require.Len(t, echo.requests(), 2)
		assert.Equal(t, []bool{true}, echo.requests()[1].verified)
		// acme's endpoint is not reachable: still the endpoint's answer.
		w = api.post(t, adminToken, "/api/partners/acme/test", "", http.StatusOK)
		assert.Contains(t, w.Body.String(), `"delivered":false`)
		assert.NotContains(t, w.Body.String(), "s3cret", "the error names no credential of the URL")
		assert.Contains(t, w.Body.String(), "hooks.acme.example", "the error says where it went")
		api.post(t, adminToken, "/api/partners/echo/test", `{"eventType":"order.shipped"}`, http.StatusBadRequest)
		api.post(t, adminToken, "/api/partners/nope/test", "", http.StatusNotFound)
		noSender := caller{c, httpapi.API(httpapi.APIConfig{Store: env.Store, Logger: env.Logger, Partners: partners,
			Auth: httpapi.TokenAuth{AdminToken: adminToken}})}
		noSender.post(t, adminToken, "/api/partners/echo/test", "", http.StatusNotImplemented)
	})

	t.Run("POST /api/partners/{partnerId}/subscriptions/test", func(t *testing.T) {
		w := api.post(t, adminToken, "/api/partners/acme/subscriptions/test", "", http.StatusOK)
		assert.Contains(t, w.Body.String(), `"matched":[{`, "the workflows submitted above")
		api.post(t, adminToken, "/api/partners/acme/subscriptions/test",
			`{"subscription":{"eventTypes":["task.*"],"filter":{"payload.type":{"$in":["email_notification"]}}},"last":5}`, http.StatusOK)
		api.post(t, adminToken, "/api/partners/acme/subscriptions/test", `{"subscription":{"eventTypes":["*"],"filter":{"a":{"$where":1}}}}`, http.StatusBadRequest)
		api.post(t, adminToken, "/api/partners/nope/subscriptions/test", "", http.StatusNotFound)
	})

	t.Run("GET /api/stats", func(t *testing.T) {
		api.get(t, adminToken, "/api/stats", http.StatusOK)
		w := api.get(t, adminToken, "/api/stats?window=1h", http.StatusOK)
		assert.Contains(t, w.Body.String(), `"since"`)
		api.get(t, adminToken, "/api/stats?window=forever", http.StatusBadRequest)
		api.get(t, "acme-token", "/api/stats", http.StatusForbidden)
	})

	t.Run("GET /api/partners", func(t *testing.T) {
		w := api.get(t, adminToken, "/api/partners", http.StatusOK)
		assert.Contains(t, w.Body.String(), `"partnerId":"acme"`)
		assert.Contains(t, w.Body.String(), `"path":"/webhooks/acme"`)
		api.get(t, "beta-token", "/api/partners", http.StatusOK)
		api.get(t, "", "/api/partners", http.StatusUnauthorized)
	})

	t.Run("partners kept in the store", func(t *testing.T) {
		send := func(method, target, body string, want int) *httptest.ResponseRecorder {
			return api.send(t, request(method, target, body, adminToken), want)
		}
		zeta := `{"id":"zeta","name":"Zeta","url":"https://zeta.example/hooks","maxInFlight":2,` +
			`"subscriptions":[{"eventTypes":["workflow.completed","task.*"],"filter":{"payload.name":{"$eq":"Nightly"}}}]}`
		send(http.MethodPost, "/api/partners", zeta, http.StatusCreated)
		send(http.MethodPost, "/api/partners", zeta, http.StatusConflict)
		send(http.MethodPost, "/api/partners", `{"id":"eta","url":"ftp://eta.example/"}`, http.StatusBadRequest)
		send(http.MethodGet, "/api/partners/zeta", "", http.StatusOK)
		send(http.MethodGet, "/api/partners/eta", "", http.StatusNotFound)
		send(http.MethodPatch, "/api/partners/zeta", `{"url":"https://zeta.example/v2","maxInFlight":null,"version":1}`, http.StatusOK)
		send(http.MethodPatch, "/api/partners/zeta", `{"name":"Zeta AG","version":1}`, http.StatusConflict)
		send(http.MethodPatch, "/api/partners/zeta", `{"url":"nowhere"}`, http.StatusBadRequest)
		send(http.MethodPatch, "/api/partners/eta", `{"name":"x"}`, http.StatusNotFound)
		send(http.MethodPost, "/api/partners/zeta/secrets/rotate", `{"overlap":"1h"}`, http.StatusOK)
		send(http.MethodPost, "/api/partners/zeta/secrets/rotate", "", http.StatusOK)
		send(http.MethodPost, "/api/partners/zeta/secrets/rotate", `{"overlap":"forever"}`, http.StatusBadRequest)
		send(http.MethodPost, "/api/partners/eta/secrets/rotate", "", http.StatusNotFound)
		send(http.MethodPost, "/api/partners/zeta/disable", `{"reason":"endpoint migration"}`, http.StatusOK)
		send(http.MethodPost, "/api/partners/zeta/disable", `{"why":"x"}`, http.StatusBadRequest)
		send(http.MethodPost, "/api/partners/eta/disable", "", http.StatusNotFound)
		send(http.MethodPost, "/api/partners/zeta/enable", "", http.StatusOK)
		send(http.MethodPost, "/api/partners/zeta/enable", `{"by":"me"}`, http.StatusBadRequest)
		send(http.MethodPost, "/api/partners/eta/enable", "", http.StatusNotFound)
		w := send(http.MethodGet, "/api/partners", "", http.StatusOK)
		assert.Contains(t, w.Body.String(), `"managed":{`)
		send(http.MethodDelete, "/api/partners/zeta", "", http.StatusOK)
		send(http.MethodDelete, "/api/partners/zeta", "", http.StatusNotFound)
		send(http.MethodGet, "/api/partners/zeta", "", http.StatusOK)

		noVault := caller{c, httpapi.API(httpapi.APIConfig{Store: env.Store, Logger: env.Logger, Auth: httpapi.TokenAuth{AdminToken: adminToken}})}
		noVault.send(t, request(http.MethodPost, "/api/partners", zeta, adminToken), http.StatusNotImplemented)
		noVault.send(t, request(http.MethodPost, "/api/partners/zeta/secrets/rotate", "", adminToken), http.StatusNotImplemented)
	})

	t.Run("GET /api/me", func(t *testing.T) {
		api.get(t, adminToken, "/api/me", http.StatusOK)
		w := api.get(t, "acme-token", "/api/me", http.StatusOK)
		assert.JSONEq(t, `{"id":"partner:acme","role":"partner","admin":false,"partnerId":"acme"}`, w.Body.String())
		api.get(t, "not-a-token", "/api/me", http.StatusUnauthorized)
	})

	t.Run("GET /api/openapi.json", func(t *testing.T) {
		w := api.get(t, "", "/api/openapi.json", http.StatusOK)
		assert.Equal(t, httpapi.OpenAPIDocument(), w.Body.Bytes(), "the embedded document is served as is")
		api.send(t, request(http.MethodGet, "/api/openapi.json", "", "", "Accept", "text/html, application/json;q=0.9"), http.StatusOK)
		api.send(t, request(http.MethodGet, "/api/openapi.json", "", "", "Accept", "application/yaml"), http.StatusNotAcceptable)
		api.send(t, request(http.MethodGet, "/api/openapi.json", "", "", "Accept", "application/json;q=0"), http.StatusNotAcceptable)
	})

	t.Run("dead letters", func(t *testing.T) {
		var entries []store.DeadLetterEntry
		for i := range 3 {
			ev, err := events.NewEvent(events.WorkflowCreatedPayload{WorkflowID: events.NewWorkflowID(), Name: "Dead",
				Steps: []string{"validate"}, Priority: events.PriorityLow, CreatedAt: events.Now()}, nil)
			require.NoError(t, err)
			value, err := json.Marshal(ev)
			require.NoError(t, err)
			entries = append(entries, store.DeadLetterEntry{
				Processor: "workflow-processor", Topic: events.TopicWorkflows, Offset: int64(i),
				Key: ev.AggregateID(), Value: value, RecordTimestamp: time.Now(),
				Reason: "processing-failed", Error: "transform: boom",
				EventType: string(ev.EventType), EventID: ev.EventID, AggregateID: ev.AggregateID(),
				Headers: []store.DeadLetterHeader{{Key: "dlq-reason", Value: "processing-failed"}},
			})
		}
		_, err := env.Store.InsertDeadLetters(ctx, entries...)
		require.NoError(t, err)
		id := store.DeadLetterID(events.TopicWorkflows, 0, 0)
		unwired := func(t *testing.T, r *http.Request, want int) *httptest.ResponseRecorder {
			t.Helper()
			return c.exchange(t, api.h, r, want, true)
		}

		t.Run("GET /api/dead-letters", func(t *testing.T) {
			w := unwired(t, request(http.MethodGet, "/api/dead-letters?topic=workflows&limit=2", "", adminToken), http.StatusOK)
			page := decodeAs[struct {
				DeadLetters []json.RawMessage `json:"deadLetters"`
				NextCursor  string            `json:"nextCursor"`
			}](t, w)
			require.Len(t, page.DeadLetters, 2)
			require.NotEmpty(t, page.NextCursor)
			unwired(t, request(http.MethodGet, "/api/dead-letters?cursor="+url.QueryEscape(page.NextCursor), "", adminToken), http.StatusOK)
			unwired(t, request(http.MethodGet, "/api/dead-letters?limit=0", "", adminToken), http.StatusBadRequest)
			unwired(t, request(http.MethodGet, "/api/dead-letters?status=all", "", adminToken), http.StatusOK)
			unwired(t, request(http.MethodGet, "/api/dead-letters?status=bogus", "", adminToken), http.StatusBadRequest)
		})
		t.Run("POST /api/dead-letters/{id}/requeue", func(t *testing.T) {
			unwired(t, request(http.MethodPost, "/api/dead-letters/"+id+"/requeue", "", adminToken), http.StatusAccepted)
			unwired(t, request(http.MethodPost, "/api/dead-letters/nope/requeue", "", adminToken), http.StatusNotFound)
		})
		t.Run("POST /api/dead-letters/requeue", func(t *testing.T) {
			unwired(t, request(http.MethodPost, "/api/dead-letters/requeue", `{"topic":"workflows","limit":10}`, adminToken), http.StatusAccepted)
			unwired(t, request(http.MethodPost, "/api/dead-letters/requeue", `{"topic":`, adminToken), http.StatusBadRequest)
			unwired(t, request(http.MethodPost, "/api/dead-letters/requeue", `{"status":"bogus"}`, adminToken), http.StatusBadRequest)
		})
	})

	t.Run("POST /api/outbox/{id}/requeue", func(t *testing.T) {
		id := env.OutboxEntryIn(t, "evt-contract-requeue", "acme", status.OutboxDeadLetter)
		api.post(t, adminToken, "/api/outbox/"+id+"/requeue", "", http.StatusAccepted)
		api.post(t, adminToken, "/api/outbox/"+id+"/requeue", "", http.StatusConflict)
		api.post(t, adminToken, "/api/outbox/nope/requeue", "", http.StatusNotFound)
	})

	t.Run("outbox entries and a partner's deliveries", func(t *testing.T) {
		// The requeue above left its entry due; settle it so only this
		// subtest's entries are.
		due, err := env.Store.ClaimDue(ctx, time.Now(), time.Minute, 10)
		require.NoError(t, err)
		for _, e := range due {
			require.NoError(t, env.Store.MarkCompleted(ctx, e))
		}
		done := env.OutboxEntryIn(t, "evt-contract-resend", "acme", status.OutboxCompleted)
		dead := env.OutboxEntryIn(t, "evt-contract-bulk", "acme", status.OutboxDeadLetter)
		api.get(t, adminToken, "/api/outbox/"+dead, http.StatusOK)
		api.get(t, adminToken, "/api/outbox/nope", http.StatusNotFound)
		api.get(t, "acme-token", "/api/outbox/"+dead, http.StatusForbidden)
		api.get(t, "nobody", "/api/outbox/"+dead, http.StatusUnauthorized)
		api.get(t, adminToken, "/api/partners/acme/deliveries?limit=1", http.StatusOK)
		api.get(t, "acme-token", "/api/partners/acme/deliveries?status=dead_letter", http.StatusOK)
		api.get(t, "acme-token", "/api/partners/globex/deliveries", http.StatusForbidden)
		api.get(t, adminToken, "/api/partners/acme/deliveries?status=bogus", http.StatusBadRequest)
		api.get(t, "nobody", "/api/partners/acme/deliveries", http.StatusUnauthorized)
		api.post(t, adminToken, "/api/partners/acme/requeue", `{"eventType":"OR_MGMT"}`, http.StatusOK)
		api.post(t, adminToken, "/api/partners/acme/requeue", `{"confirm":7}`, http.StatusConflict)
		api.post(t, adminToken, "/api/partners/acme/requeue", `{"since":"yesterday"}`, http.StatusBadRequest)
		api.post(t, "beta-token", "/api/partners/acme/requeue", ``, http.StatusForbidden)
		api.post(t, "nobody", "/api/partners/acme/requeue", ``, http.StatusUnauthorized)
		api.post(t, adminToken, "/api/partners/acme/requeue", `{"confirm":1}`, http.StatusAccepted)
		api.post(t, adminToken, "/api/outbox/"+done+"/resend", "", http.StatusAccepted)
		api.post(t, adminToken, "/api/outbox/"+done+"/resend", "", http.StatusConflict)
		api.post(t, adminToken, "/api/outbox/nope/resend", "", http.StatusNotFound)
		api.post(t, "acme-token", "/api/outbox/"+done+"/resend", "", http.StatusForbidden)
		api.post(t, "nobody", "/api/outbox/"+done+"/resend", "", http.StatusUnauthorized)
	})

	t.Run("GET /api/traces/{traceId}", func(t *testing.T) {
		traceviewtest.Store(t, env.Store, nil)
		api.get(t, adminToken, "/api/traces/"+traceviewtest.TraceID, http.StatusOK)
		api.get(t, adminToken, "/api/traces/"+strings.ToUpper(traceviewtest.TraceID), http.StatusBadRequest)
		api.get(t, adminToken, "/api/traces/"+strings.Repeat("ab", 16), http.StatusNotFound)
	})

	t.Run("subjects", func(t *testing.T) {
		api.post(t, adminToken, "/api/tasks", `{"type":"email_notification","data":{"recipient":"erase.me@example.com"}}`, http.StatusCreated)
		var found httpapi.SubjectsView
		w := api.post(t, adminToken, "/api/subjects/lookup", `{"email":"erase.me@example.com"}`, http.StatusOK)
		require.NoError(t, json.Unmarshal(w.Body.Bytes(), &found))
		require.Len(t, found.Subjects, 1)
		api.post(t, adminToken, "/api/subjects/lookup", `{"email":"a@example.com","phone":"+4915112345678"}`, http.StatusBadRequest)
		api.get(t, adminToken, "/api/subjects/"+found.Subjects[0].SubjectID, http.StatusOK)
		api.get(t, adminToken, "/api/subjects/nobody-known", http.StatusOK)
		api.get(t, adminToken, "/api/subjects/erase.me@example.com", http.StatusBadRequest)
		api.post(t, adminToken, "/api/subjects/erase", `{"email":"erase.me@example.com"}`, http.StatusOK)
		api.post(t, adminToken, "/api/subjects/erase", `{"email":"erase.me@example.com"}`, http.StatusOK)
		api.post(t, adminToken, "/api/subjects/erase", `{"email":"a@example.com","phone":"+4915112345678"}`, http.StatusBadRequest)
		api.post(t, adminToken, "/api/subjects/erase", `{"mail":"a@example.com"}`, http.StatusBadRequest)
		noVault := caller{c, httpapi.API(httpapi.APIConfig{Submit: sub, Store: env.Store, Logger: env.Logger,
			Auth: httpapi.TokenAuth{AdminToken: adminToken}})}
		noVault.post(t, adminToken, "/api/subjects/erase", `{"email":"a@example.com"}`, http.StatusNotImplemented)
		noVault.get(t, adminToken, "/api/subjects/k3j5mq7r2v4x6z2b2d4f6h2j2l", http.StatusNotImplemented)
		noVault.post(t, adminToken, "/api/subjects/lookup", `{"email":"a@example.com"}`, http.StatusNotImplemented)
	})

	// Last: a rerun adds events the subtests before count.
	t.Run("POST /api/workflows/{id}/rerun", func(t *testing.T) {
		path := "/api/workflows/" + workflowID + "/rerun"
		api.post(t, adminToken, path, ``, http.StatusConflict) // still processing
		ended := time.Now().UTC()
		_, err := env.Store.SaveWorkflowCheckpoints(ctx, store.WorkflowCheckpoint{Workflow: store.Workflow{
			WorkflowID: workflowID, Status: status.WorkflowFailed, CurrentStepIndex: 1, StartedAt: &ended, CompletedAt: &ended,
			StepResults: []store.StepProgress{{StepName: "validate", StepIndex: 0, CompletedAt: ended, Duration: 12, Result: store.JSONDoc(`{"valid":1}`)}},
			Error:       &events.WorkflowError{Code: "TRANSFORM_ERROR", Message: "field missing", Stack: "s"},
		}, ResumeRecords: []store.JSONDoc{store.JSONDoc(`{"id":1}`)}})
		require.NoError(t, err)
		api.post(t, adminToken, path, `{"fromStep":"deliver"}`, http.StatusBadRequest)
		api.post(t, adminToken, path, `{"fromStep":"validate"}`, http.StatusAccepted, "Idempotency-Key", "contract-rerun")
		api.post(t, adminToken, path, ``, http.StatusUnprocessableEntity, "Idempotency-Key", "contract-rerun")
		api.post(t, adminToken, "/api/workflows/wf-00000000-0000-4000-8000-000000000000/rerun", ``, http.StatusNotFound)
	})

	c.requireCoverage(t)
}
