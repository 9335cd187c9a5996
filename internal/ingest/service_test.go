package ingest_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/ingest"
	"github.com/streamops/streamops/internal/jsonbody"
	"github.com/streamops/streamops/internal/provider"
	"github.com/streamops/streamops/internal/status"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/submit"
	"github.com/streamops/streamops/internal/testenv"
	"github.com/streamops/streamops/internal/tracing"
)

const secret = "whsec_ingest_test"

// acme signs with HMAC and routes by its route table; partner is a
// seed-000 partner whose deliveries are also partner events.
var testProviders = []provider.Provider{
	{
		Name:      "acme",
		Signature: provider.Signature{Scheme: provider.SchemeHMAC, Header: "X-Acme-Signature"},
		EventID:   provider.Field{Path: "id"}, EventType: provider.Field{Path: "type"},
		MaxBodyBytes: 4 << 20,
		Routes: []provider.Route{
			{Match: "order.created", Workflow: &provider.WorkflowTemplate{Name: "Order intake", Steps: []string{"validate", "store"}, Priority: "high"}},
			{Match: "invoice.ignored", Skip: true},
			{Match: "invoice.*", Task: &provider.TaskTemplate{Type: events.TaskDataExport, Data: map[string]string{"invoice": "invoice.id"}, MaxRetries: 5}},
		},
	},
	{
		Name:      "partner",
		Signature: provider.Signature{Scheme: provider.SchemeHMAC, Header: "X-Partner-Signature"},
		EventID:   provider.Field{Path: "id"}, EventType: provider.Field{Path: "type"},
		Partner: &provider.Partner{PartnerID: "globex", PartnerName: "Globex", EntityIDPath: "order.id", EntityType: "Order",
			DeliveryFields: []string{"sentAt"}},
		Routes: []provider.Route{
			{Match: "OR_MGMT", Workflow: &provider.WorkflowTemplate{Name: "Partner Order Sync", Steps: []string{"validate", "store"}, Priority: "high"}},
		},
	},
	{
		Name:      "tiny",
		Signature: provider.Signature{Scheme: provider.SchemeHMAC, Header: "X-Tiny-Signature"},
		EventID:   provider.Field{Path: "id"}, EventType: provider.Field{Path: "type"},
		MaxBodyBytes: 64,
	},
	{
		Name:      "unkeyed",
		Signature: provider.Signature{Scheme: provider.SchemeHMAC, Header: "X-Unkeyed-Signature"},
		EventID:   provider.Field{Path: "id"}, EventType: provider.Field{Path: "type"},
	},
}

type harness struct {
	env *testenv.Env
	reg *provider.Registry
	svc *ingest.Service
}

// secretsDown is a secret source that cannot be read.
type secretsDown struct{}

func (secretsDown) Secrets(context.Context, string) ([]string, error) {
	return nil, errors.New("secrets manager unreachable")
}

// newHarness is a Service over a real store (storetest's engine) and a
// kfake broker; secrets is the secret source, nil for every provider but
// "unkeyed" holding secret.
func newHarness(t *testing.T, secrets provider.SecretSource) *harness {
	t.Helper()
	reg, err := provider.NewRegistry(provider.Config{Providers: testProviders})
	require.NoError(t, err)
	if secrets == nil {
		secrets = provider.EnvSecrets{Lookup: func(name string) string {
			if name == provider.SecretEnvVar("unkeyed") {
				return ""
			}
			return secret
		}}
	}
	env := testenv.New(t, testenv.Options{})
	svc, err := ingest.New(ingest.Config{Providers: reg, Secrets: secrets, Store: env.Store, Emitter: env.Emitter, Logger: env.Logger})
	require.NoError(t, err)
	return &harness{env: env, reg: reg, svc: svc}
}

// deliver signs body as provider does and hands it to Receive.
func (h *harness) deliver(t *testing.T, name string, body string) (ingest.Receipt, error) {
	t.Helper()
	hdr := http.Header{"Content-Type": {"application/json"}}
	if p, ok := h.reg.Provider(name); ok {
		signed, err := p.Sign([]byte(body), secret, provider.SignOptions{})
		require.NoError(t, err)
		for k, v := range signed {
			hdr[k] = v
		}
	}
	return h.svc.Receive(context.Background(), name, hdr, []byte(body))
}

// webhookRows is every stored webhook event.
func (h *harness) webhookRows(t *testing.T) []store.WebhookEvent {
	t.Helper()
	rows, _, err := h.env.Store.FindWebhookEvents(context.Background(), store.WebhookEventFilter{}, nil, 100)
	require.NoError(t, err)
	return rows
}

// published is every envelope on the workflows and tasks topics.
func (h *harness) published(t *testing.T) []events.Envelope {
	t.Helper()
	return append(h.env.Envelopes(t, events.TopicWorkflows), h.env.Envelopes(t, events.TopicTasks)...)
}

func TestNewRequiresEveryDependency(t *testing.T) {
	reg, err := provider.NewRegistry(provider.Config{Providers: testProviders})
	require.NoError(t, err)
	env := testenv.New(t, testenv.Options{})
	full := ingest.Config{Providers: reg, Secrets: provider.EnvSecrets{}, Store: env.Store, Emitter: env.Emitter}
	tests := []struct {
		name    string
		drop    func(*ingest.Config)
		wantErr string
	}{
		{"complete", func(*ingest.Config) {}, ""},
		{"no providers", func(c *ingest.Config) { c.Providers = nil }, "Providers"},
		{"no secrets", func(c *ingest.Config) { c.Secrets = nil }, "Secrets"},
		{"no store", func(c *ingest.Config) { c.Store = nil }, "Store"},
		{"no emitter", func(c *ingest.Config) { c.Emitter = nil }, "Emitter"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := full
			tc.drop(&cfg)
			svc, err := ingest.New(cfg)
			if tc.wantErr == "" {
				require.NoError(t, err)
				assert.NotNil(t, svc)
				return
			}
			assert.ErrorContains(t, err, tc.wantErr)
			assert.Nil(t, svc)
		})
	}
}

// TestReceiveRefusesBadDeliveriesWithNothingStored: every refusal is an
// error the HTTP layer maps to a 4xx (503 for secrets), and leaves no row,
// no event and no record behind.
func TestReceiveRefusesBadDeliveriesWithNothingStored(t *testing.T) {
	// A workflow.created carrying a 1 MiB body as its input is larger than
	// the brokers' message size, though the body is within acme's limit.
	huge := `{"id":"evt_huge","type":"order.created","pad":"` + strings.Repeat("x", 1<<20) + `"}`
	tests := []struct {
		name     string
		secrets  provider.SecretSource
		provider string
		body     string
		header   http.Header // replaces the signature when set
		want     error
	}{
		{"unknown provider", nil, "nobody", `{"id":"evt_1","type":"order.created"}`, nil, ingest.ErrUnknownProvider},
		{"body over the provider's limit", nil, "tiny", `{"id":"evt_1","type":"order.created","pad":"` + strings.Repeat("x", 64) + `"}`, nil, ingest.ErrBodyTooLarge},
		{"secrets unreadable", secretsDown{}, "acme", `{"id":"evt_1","type":"order.created"}`, nil, ingest.ErrSecretsUnavailable},
		{"no secret configured", nil, "unkeyed", `{"id":"evt_1","type":"order.created"}`, nil, provider.ErrNoSecret},
		{"missing signature", nil, "acme", `{"id":"evt_1","type":"order.created"}`, http.Header{}, provider.ErrMissingSignature},
		{"wrong signature", nil, "acme", `{"id":"evt_1","type":"order.created"}`, http.Header{"X-Acme-Signature": {strings.Repeat("ab", 32)}}, provider.ErrInvalidSignature},
		{"not JSON", nil, "acme", `{"id":`, nil, jsonbody.ErrInvalid},
		{"two JSON values", nil, "acme", `{"id":"evt_1","type":"order.created"}{}`, nil, jsonbody.ErrInvalid},
		{"no event id", nil, "acme", `{"type":"order.created"}`, nil, provider.ErrInvalidPayload},
		{"no event type", nil, "acme", `{"id":"evt_1"}`, nil, provider.ErrInvalidPayload},
		{"created event over the brokers' limit", nil, "acme", huge, nil, ingest.ErrBodyTooLarge},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, tc.secrets)
			var (
				receipt ingest.Receipt
				err     error
			)
			if tc.header != nil {
				receipt, err = h.svc.Receive(context.Background(), tc.provider, tc.header, []byte(tc.body))
			} else {
				receipt, err = h.deliver(t, tc.provider, tc.body)
			}
			require.ErrorIs(t, err, tc.want)
			assert.Equal(t, ingest.Receipt{}, receipt)
			assert.Empty(t, h.webhookRows(t), "no webhook row")
			assert.Empty(t, h.published(t), "nothing published")
			pending, err := h.env.Store.UnpublishedEvents(context.Background(), events.Now().Add(1e12), 10)
			require.NoError(t, err)
			assert.Empty(t, pending, "no event stored")
		})
	}
}

// TestReceiveRoutesByTheRouteTable: the row is stored with its outcome,
// the route's workflow or task is stored with ids derived from the
// webhook event, and its *.created is published; a skipped or unroutable
// event starts nothing.
func TestReceiveRoutesByTheRouteTable(t *testing.T) {
	tests := []struct {
		name       string
		body       string
		wantStatus string
		wantError  string // the row's error_message
		wantKind   string // "workflow", "task" or "" for nothing started
	}{
		{"exact match starts a workflow", `{"id":"evt_w","type":"order.created","order":{"id":"o-1"}}`, status.WebhookProcessing, "", "workflow"},
		{"pattern starts a task", `{"id":"evt_t","type":"invoice.paid","invoice":{"id":"in_1"}}`, status.WebhookProcessing, "", "task"},
		{"skip route before the pattern", `{"id":"evt_s","type":"invoice.ignored","invoice":{"id":"in_1"}}`, status.WebhookSkipped, "", ""},
		{"no route", `{"id":"evt_n","type":"customer.deleted"}`, status.WebhookSkipped, "", ""},
		{"task data path missing", `{"id":"evt_f","type":"invoice.paid"}`, status.WebhookFailed, "invoice.id", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, nil)
			ctx := context.Background()
			receipt, err := h.deliver(t, "acme", tc.body)
			require.NoError(t, err)
			var doc struct{ ID, Type string }
			require.NoError(t, json.Unmarshal([]byte(tc.body), &doc))
			whID := store.WebhookEventID("acme", doc.ID)
			assert.True(t, tracing.ValidTraceID(receipt.TraceID), "received in a new trace: %q", receipt.TraceID)
			assert.Equal(t, ingest.Receipt{Status: ingest.Accepted, WebhookEventID: whID, TraceID: receipt.TraceID}, receipt)

			row, err := h.env.Store.GetWebhookEvent(ctx, whID)
			require.NoError(t, err)
			assert.Equal(t, tc.wantStatus, row.Status)
			assert.Equal(t, doc.Type, row.EventType)
			assert.Equal(t, doc.ID, row.ProviderEventID)
			assert.Equal(t, receipt.TraceID, row.TraceID, "the row keeps its trace")
			if tc.wantError != "" {
				assert.Contains(t, row.ErrorMessage, tc.wantError)
				assert.Equal(t, 1, row.RetryCount, "a failed routing counts as an attempt")
			}

			received, err := h.env.Store.GetEvent(ctx, events.DeriveID(events.EventIDPrefix, whID, string(events.WebhookReceived)))
			if tc.wantStatus == status.WebhookFailed {
				assert.ErrorIs(t, err, store.ErrNotFound, "an unroutable event stores no webhook.received")
			} else {
				require.NoError(t, err)
				assert.Equal(t, string(events.WebhookReceived), received.EventType)
			}

			published := h.published(t)
			switch tc.wantKind {
			case "workflow":
				id := events.DeriveID(events.WorkflowIDPrefix, whID, "workflow", "run-0")
				wf, err := h.env.Store.GetWorkflow(ctx, id)
				require.NoError(t, err)
				assert.Equal(t, "Order intake", wf.Name)
				assert.Equal(t, []string{"validate", "store"}, wf.Steps)
				assert.Equal(t, whID, wf.WebhookEventID)
				assert.JSONEq(t, tc.body, string(wf.Input), "the workflow's input is the (redacted) payload")
				require.Len(t, published, 1)
				assert.Equal(t, events.WorkflowCreated, published[0].EventType)
				assert.Equal(t, id, published[0].AggregateID())
				assert.Equal(t, events.DeriveID(events.EventIDPrefix, whID, string(events.WorkflowCreated), "run-0"), published[0].EventID)
				assert.Equal(t, "webhook", published[0].Metadata.Source)
				assert.Equal(t, whID, published[0].Metadata.CorrelationID)
				assert.Equal(t, "acme", published[0].Metadata.PartnerID)
			case "task":
				id := events.DeriveID(events.TaskIDPrefix, whID, "task", "run-0")
				task, err := h.env.Store.GetTask(ctx, id)
				require.NoError(t, err)
				assert.Equal(t, string(events.TaskDataExport), task.Type)
				assert.JSONEq(t, `{"invoice":"in_1"}`, string(task.Data), "data read from the payload by the template's paths")
				assert.Equal(t, 5, task.MaxRetries)
				require.Len(t, published, 1)
				assert.Equal(t, events.TaskCreated, published[0].EventType)
				assert.Equal(t, id, published[0].AggregateID())
			default:
				assert.Empty(t, published)
			}
		})
	}
}

func TestReceiveAnswersARedeliveryAsADuplicateAndStartsNothingTwice(t *testing.T) {
	h := newHarness(t, nil)
	body := `{"id":"evt_dup","type":"order.created"}`
	first, err := h.deliver(t, "acme", body)
	require.NoError(t, err)
	require.Equal(t, ingest.Accepted, first.Status)
	for range 2 {
		again, err := h.deliver(t, "acme", body)
		require.NoError(t, err)
		assert.Equal(t, ingest.Receipt{Status: ingest.Duplicate, WebhookEventID: first.WebhookEventID, TraceID: first.TraceID}, again,
			"a redelivery (in a trace of its own) names the first delivery's trace")
	}
	// The provider name is case-insensitive: the same delivery.
	again, err := h.svc.Receive(context.Background(), "ACME", signed(t, h, "acme", body), []byte(body))
	require.NoError(t, err)
	assert.Equal(t, ingest.Duplicate, again.Status)
	assert.Len(t, h.webhookRows(t), 1)
	assert.Len(t, h.published(t), 1, "one workflow.created")
}

func signed(t *testing.T, h *harness, name, body string) http.Header {
	return testenv.Sign(t, h.reg, name, []byte(body), secret, provider.SignOptions{})
}

// TestReceiveScrubsThePayloadBeforeStoringIt: the row, the workflow's
// input and the published event carry the redacted payload only.
func TestReceiveScrubsThePayloadBeforeStoringIt(t *testing.T) {
	h := newHarness(t, nil)
	ctx := context.Background()
	receipt, err := h.deliver(t, "acme", `{"id":"evt_pii","type":"order.created","customer":{"email":"jane@example.com","name":"Jane"}}`)
	require.NoError(t, err)
	row, err := h.env.Store.GetWebhookEvent(ctx, receipt.WebhookEventID)
	require.NoError(t, err)
	wf, err := h.env.Store.GetWorkflow(ctx, events.DeriveID(events.WorkflowIDPrefix, receipt.WebhookEventID, "workflow", "run-0"))
	require.NoError(t, err)
	published := h.published(t)
	require.Len(t, published, 1)
	for what, doc := range map[string]string{"row": string(row.Payload), "workflow input": string(wf.Input), "workflow.created": string(published[0].Payload)} {
		assert.NotContains(t, doc, "jane@example.com", what)
		assert.Contains(t, doc, provider.Redacted, what)
	}
}

func TestReceiveRecordsAPartnerDeliveryAsAnInboundPartnerEvent(t *testing.T) {
	tests := []struct {
		name    string
		body    string
		wantErr bool
	}{
		{"with its entity id", `{"id":"evt_p1","type":"order.shipped","order":{"id":"ORD-7"}}`, false},
		{"without it", `{"id":"evt_p2","type":"order.shipped"}`, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, nil)
			ctx := context.Background()
			receipt, err := h.deliver(t, "partner", tc.body)
			require.NoError(t, err)
			row, err := h.env.Store.GetWebhookEvent(ctx, receipt.WebhookEventID)
			require.NoError(t, err)
			pe, err := h.env.Store.GetPartnerEvent(ctx, store.PartnerEventID("globex", status.DirectionIn, "ORD-7", "order.shipped"))
			if tc.wantErr {
				assert.Equal(t, status.WebhookFailed, row.Status)
				assert.Contains(t, row.ErrorMessage, "entity_id")
				assert.ErrorIs(t, err, store.ErrNotFound)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, status.WebhookSkipped, row.Status, "no route: stored and skipped")
			assert.Equal(t, status.DirectionIn, pe.EventDirection)
			assert.Equal(t, status.PartnerSuccess, pe.EventStatus)
			assert.Equal(t, "order.shipped", pe.EventType)
			assert.Equal(t, "webhook:partner", pe.CreatedBy)
			assert.Equal(t, store.PartnerEntityMetadata{PartnerID: "globex", PartnerName: "Globex", EntityID: "ORD-7", EntityType: "Order"},
				pe.EntityMetadata)
			assert.Equal(t, receipt.WebhookEventID, pe.WebhookEventID)
			assert.Equal(t, 1, pe.EntityVersion)
		})
	}
}

// TestAPartnerResendUnderANewIDStartsNothingAndANewStateIsAVersion sends,
// signed, one partner order through Receive as a partner would: first, a
// resend after a timeout on its side (a new event id and send time, the
// same order), a genuine later state of the order (another
// orderStatusLatest), a resend of that, and last the first delivery routed
// again by the sweeper. Seed 000's entity_id + event_type keys one
// document: a resend is a duplicate that starts no workflow; a new state
// is a new version that starts one; nothing older replaces it.
func TestAPartnerResendUnderANewIDStartsNothingAndANewStateIsAVersion(t *testing.T) {
	h := newHarness(t, nil)
	ctx := context.Background()
	order := func(id, sent, st string) string {
		return `{"id":"` + id + `","type":"OR_MGMT","sentAt":"` + sent + `","order":{"id":"order-12345","orderStatusLatest":"` + st + `"}}`
	}
	docID := store.PartnerEventID("globex", status.DirectionIn, "order-12345", "OR_MGMT")
	steps := []struct {
		name        string
		body        string
		wantStatus  string
		wantOf      int // the step whose webhook event the answer names
		wantVersion int
		wantState   string
		workflows   int // started so far
	}{
		{"first delivery", order("evt_a1", "2026-12-01T10:00:00Z", "OR_PLC"), ingest.Accepted, 0, 1, "OR_PLC", 1},
		{"resend after a timeout: new id, new send time", order("evt_a2", "2026-12-01T10:00:30Z", "OR_PLC"), ingest.Duplicate, 0, 1, "OR_PLC", 1},
		{"the same id again", order("evt_a2", "2026-12-01T10:00:30Z", "OR_PLC"), ingest.Duplicate, 1, 1, "OR_PLC", 1},
		{"a later state of the order", order("evt_a3", "2026-12-01T11:00:00Z", "OR_SHP"), ingest.Accepted, 3, 2, "OR_SHP", 2},
		{"a resend of the later state", order("evt_a4", "2026-12-01T11:00:20Z", "OR_SHP"), ingest.Duplicate, 3, 2, "OR_SHP", 2},
	}
	ids := make([]string, len(steps))
	for i, st := range steps {
		receipt, err := h.deliver(t, "partner", st.body)
		require.NoError(t, err, st.name)
		var doc struct{ ID string }
		require.NoError(t, json.Unmarshal([]byte(st.body), &doc))
		ids[i] = store.WebhookEventID("partner", doc.ID)
		assert.Equal(t, st.wantStatus, receipt.Status, st.name)
		assert.Equal(t, ids[st.wantOf], receipt.WebhookEventID, "%s: the answer names the delivery whose work runs", st.name)
		pe, err := h.env.Store.GetPartnerEvent(ctx, docID)
		require.NoError(t, err, st.name)
		assert.Equal(t, st.wantVersion, pe.EntityVersion, st.name)
		assert.JSONEq(t, `"`+st.wantState+`"`, mustGet(t, pe.EntityData, "order", "orderStatusLatest"), st.name)
		assert.Len(t, h.env.Envelopes(t, events.TopicWorkflows), st.workflows, "%s: workflows started", st.name)
	}
	rows := h.webhookRows(t)
	assert.Len(t, rows, 4, "every delivery with a new id is recorded")
	resend, err := h.env.Store.GetWebhookEvent(ctx, ids[1])
	require.NoError(t, err)
	assert.Equal(t, status.WebhookSkipped, resend.Status)
	assert.Equal(t, "resend of webhook event "+ids[0], resend.ErrorMessage)

	first, err := h.env.Store.GetWebhookEvent(ctx, ids[0])
	require.NoError(t, err)
	require.NoError(t, h.svc.Route(ctx, first), "the sweeper routing the first delivery again")
	pe, err := h.env.Store.GetPartnerEvent(ctx, docID)
	require.NoError(t, err)
	assert.Equal(t, 2, pe.EntityVersion, "an older delivery never replaces the newer state")
	assert.Equal(t, ids[3], pe.WebhookEventID)
	assert.Len(t, h.env.Envelopes(t, events.TopicWorkflows), 2, "routing it again is the same run")

	history, err := h.env.Store.PartnerHistory(ctx, "globex")
	require.NoError(t, err)
	assert.Len(t, history, 1, "one partner_events document per entity_id + event_type")
}

// mustGet is the JSON at the path of keys in doc.
func mustGet(t *testing.T, doc store.JSONDoc, keys ...string) string {
	t.Helper()
	var v any
	require.NoError(t, json.Unmarshal(doc, &v))
	for _, k := range keys {
		m, ok := v.(map[string]any)
		require.True(t, ok, "no object at %v in %s", keys, doc)
		v = m[k]
	}
	raw, err := json.Marshal(v)
	require.NoError(t, err)
	return string(raw)
}

// TestRoutingAnAttemptAgainIsTheSameRunAndOnlyANewAttemptStartsAnother:
// routing a row again (a stalled or unrouted one, a routing failure, an
// operator's plain retry) repeats its attempt's ids, so its work is a
// duplicate, never a twin; a row whose run reached its end is refused and
// left as it is; only an explicit new attempt starts another run, with
// ids of its own, recorded on the row and carried by its events.
func TestRoutingAnAttemptAgainIsTheSameRunAndOnlyANewAttemptStartsAnother(t *testing.T) {
	const body = `{"id":"evt_r","type":"order.created"}`
	tests := []struct {
		name string
		// state brings the delivered row to the state of the case.
		state func(t *testing.T, h *harness, id string)
		// act routes the row again or asks for a new attempt.
		act        func(h *harness, row store.WebhookEvent) error
		wantErr    error
		wantStatus string
		// wantRuns are the workflows the webhook event started, by run.
		wantRuns []string
		// wantAttempt is the row's attempt after.
		wantAttempt int
	}{
		{"a stalled processing row routed again", nil, route, nil, status.WebhookProcessing, []string{"run-0"}, 1},
		{"a routing failure routed again", func(t *testing.T, h *harness, id string) {
			require.NoError(t, h.env.Store.SetWebhookStatus(context.Background(), id, status.WebhookFailed, "provider misconfigured"))
		}, route, nil, status.WebhookProcessing, []string{"run-0"}, 1},
		{"a run that failed is not routed again", settled(status.WebhookFailed), route, ingest.ErrRunEnded, status.WebhookFailed, []string{"run-0"}, 1},
		{"a completed run is not retried by an operator", settled(status.WebhookCompleted), retryBy("operator-1"), store.ErrStatusConflict, status.WebhookCompleted, []string{"run-0"}, 1},
		{"a new attempt of a completed run", settled(status.WebhookCompleted), newAttempt("records fixed upstream", ""), nil, status.WebhookProcessing, []string{"run-0", "run-1"}, 2},
		{"a new attempt of a failed run", settled(status.WebhookFailed), newAttempt("partner endpoint fixed", ""), nil, status.WebhookProcessing, []string{"run-0", "run-1"}, 2},
		{"a new attempt while the run goes on", nil, newAttempt("impatient", ""), store.ErrStatusConflict, status.WebhookProcessing, []string{"run-0"}, 1},
		{"a new attempt of a routing failure", func(t *testing.T, h *harness, id string) {
			require.NoError(t, h.env.Store.SetWebhookStatus(context.Background(), id, status.WebhookFailed, "provider misconfigured"))
		}, newAttempt("why not", ""), store.ErrStatusConflict, status.WebhookFailed, []string{"run-0"}, 1},
		{"a new attempt without a reason", settled(status.WebhookCompleted), newAttempt("  ", ""), nil, status.WebhookCompleted, []string{"run-0"}, 1},
		{"a new attempt asked twice with one key", settled(status.WebhookFailed), func(h *harness, row store.WebhookEvent) error {
			if err := newAttempt("fixed", "key-1")(h, row); err != nil {
				return err
			}
			return newAttempt("fixed", "key-1")(h, row)
		}, nil, status.WebhookProcessing, []string{"run-0", "run-1"}, 2},
		{"one key for two reasons", settled(status.WebhookFailed), func(h *harness, row store.WebhookEvent) error {
			if err := newAttempt("fixed", "key-1")(h, row); err != nil {
				return err
			}
			return newAttempt("fixed differently", "key-1")(h, row)
		}, submit.ErrIdempotencyConflict, status.WebhookProcessing, []string{"run-0", "run-1"}, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, nil)
			ctx := context.Background()
			receipt, err := h.deliver(t, "acme", body)
			require.NoError(t, err)
			id := receipt.WebhookEventID
			if tc.state != nil {
				tc.state(t, h, id)
			}
			row, err := h.env.Store.GetWebhookEvent(ctx, id)
			require.NoError(t, err)
			before := *row.ProcessingStartedAt

			err = tc.act(h, row)
			switch {
			case tc.wantErr != nil:
				require.ErrorIs(t, err, tc.wantErr)
			case strings.Contains(tc.name, "without a reason"):
				var verr *submit.ValidationError
				require.ErrorAs(t, err, &verr)
				assert.Equal(t, "reason", verr.Field)
			default:
				require.NoError(t, err)
			}

			var runs []string
			for _, run := range []string{"run-0", "run-1", "run-2"} {
				wfID := events.DeriveID(events.WorkflowIDPrefix, id, "workflow", run)
				if len(h.env.Lifecycle(t, events.TopicWorkflows, wfID)) > 0 {
					runs = append(runs, run)
					assert.Len(t, h.env.Lifecycle(t, events.TopicWorkflows, wfID), 1, "%s: one workflow.created, published once", run)
				}
			}
			assert.Equal(t, tc.wantRuns, runs, "the runs the webhook event started")
			stored, err := h.env.Store.GetWebhookEvent(ctx, id)
			require.NoError(t, err)
			assert.Equal(t, tc.wantStatus, stored.Status)
			assert.Equal(t, tc.wantAttempt, stored.CurrentAttempt())
			if tc.wantErr != nil && len(tc.wantRuns) == 1 {
				assert.Equal(t, before, *stored.ProcessingStartedAt, "a refusal changes nothing")
			}
			last := events.DeriveID(events.WorkflowIDPrefix, id, "workflow", tc.wantRuns[len(tc.wantRuns)-1])
			if stored.Status == status.WebhookProcessing {
				assert.Equal(t, last, stored.RunID, "the row names the run its attempt started")
			}
			if tc.wantAttempt == 1 {
				assert.Empty(t, stored.Attempts)
				return
			}
			require.Len(t, stored.Attempts, 1, "one attempt recorded")
			a := stored.Attempts[0]
			assert.Equal(t, 2, a.Attempt)
			assert.Equal(t, row.Status, a.PreviousStatus)
			assert.Equal(t, events.DeriveID(events.WorkflowIDPrefix, id, "workflow", "run-0"), a.PreviousRunID)
			assert.Equal(t, "operator-1", a.RequestedBy)
			assert.NotEmpty(t, a.Reason)
			assert.False(t, a.RequestedAt.IsZero())
			created := h.env.Lifecycle(t, events.TopicWorkflows, last)
			require.Len(t, created, 1)
			assert.Equal(t, 2, created[0].Metadata.Attempt, "the new attempt's events say which attempt they are")
			assert.Equal(t, events.String("operator-1"), created[0].Metadata.UserID, "and who asked for it")
			wf, err := h.env.Store.GetWorkflow(ctx, last)
			require.NoError(t, err)
			assert.Equal(t, 2, wf.Attempt, "every event of its run carries the attempt")
		})
	}
}

// route is the retry-sweeper routing row again.
func route(h *harness, row store.WebhookEvent) error { return h.svc.Route(context.Background(), row) }

// retryBy is an operator's plain retry (POST /api/webhook-events/{id}/retry
// without a body).
func retryBy(userID string) func(h *harness, row store.WebhookEvent) error {
	return func(h *harness, row store.WebhookEvent) error {
		return h.svc.RouteAs(context.Background(), row, userID)
	}
}

// newAttempt is operator-1 asking for a new attempt for reason, under the
// Idempotency-Key key ("" none).
func newAttempt(reason, key string) func(h *harness, row store.WebhookEvent) error {
	return func(h *harness, row store.WebhookEvent) error {
		_, err := h.svc.NewAttempt(context.Background(), row.EventID, ingest.AttemptRequest{Reason: reason},
			submit.Caller{UserID: "operator-1", IdempotencyKey: key})
		return err
	}
}

// settled ends the run of the delivered row as its workflow-processor
// would: with the outcome to.
func settled(to string) func(t *testing.T, h *harness, id string) {
	return func(t *testing.T, h *harness, id string) {
		row, err := h.env.Store.GetWebhookEvent(context.Background(), id)
		require.NoError(t, err)
		n, err := h.env.Store.SettleWebhookEvents(context.Background(),
			store.WebhookOutcome{EventID: id, RunID: row.RunID, Status: to, Error: "INVALID_INPUT"})
		require.NoError(t, err)
		require.Equal(t, 1, n)
	}
}

func TestRouteMarksAnUnroutableRowFailed(t *testing.T) {
	tests := []struct {
		name    string
		row     store.WebhookEvent
		want    error
		wantMsg string
	}{
		{"unknown provider", store.WebhookEvent{EventID: "wh-gone", Provider: "gone", EventType: "order.created", Payload: store.JSONDoc(`{}`)},
			ingest.ErrUnknownProvider, ""},
		{"task data missing", store.WebhookEvent{Provider: "acme", ProviderEventID: "evt_m", EventType: "invoice.paid", Payload: store.JSONDoc(`{"id":"evt_m"}`)},
			provider.ErrInvalidPayload, "invoice.id"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, nil)
			ctx := context.Background()
			row := tc.row
			if row.Provider == "acme" {
				var err error
				row, err = h.env.Store.InsertWebhookEvent(ctx, row)
				require.NoError(t, err)
				require.Equal(t, status.WebhookReceived, row.Status)
			}
			require.ErrorIs(t, h.svc.Route(ctx, row), tc.want)
			assert.Empty(t, h.published(t))
			if tc.wantMsg == "" {
				return
			}
			stored, err := h.env.Store.GetWebhookEvent(ctx, row.EventID)
			require.NoError(t, err)
			assert.Equal(t, status.WebhookFailed, stored.Status)
			assert.Contains(t, stored.ErrorMessage, tc.wantMsg)
			assert.Equal(t, 1, stored.RetryCount, "counted as an attempt, so the sweeper's retries are bounded")
		})
	}
}
