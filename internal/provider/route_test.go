package provider_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/provider"
)

func TestDefaultRoutes(t *testing.T) {
	tests := []struct {
		provider  string
		eventType string
		want      *provider.Route // nil: no route, the event is stored as skipped
	}{
		{"stripe", "invoice.finalized", &provider.Route{Match: "invoice.*", Workflow: &provider.WorkflowTemplate{
			Name: "Invoice Sync", Steps: []string{"validate", "transform", "store"}, Priority: events.PriorityHigh}}},
		{"stripe", "invoice.payment_succeeded", &provider.Route{Match: "invoice.*", Workflow: &provider.WorkflowTemplate{
			Name: "Invoice Sync", Steps: []string{"validate", "transform", "store"}, Priority: events.PriorityHigh}}},
		{"stripe", "invoice", nil},
		{"stripe", "invoiceitem.created", nil},
		{"stripe", "customer.created", &provider.Route{Match: "customer.created", Workflow: &provider.WorkflowTemplate{
			Name: "Customer Sync", Steps: []string{"validate", "transform", "store"}, Priority: events.PriorityMedium}}},
		{"stripe", "customer.updated", nil},
		{"github", "push", &provider.Route{Match: "push", Workflow: &provider.WorkflowTemplate{
			Name: "CI Trigger", Steps: []string{"validate", "store"}, Priority: events.PriorityMedium}}},
		{"github", "ping", nil},
		{"standard", "contact.created", nil},
		{"acme", "OR_MGMT", &provider.Route{Match: "OR_*", Workflow: &provider.WorkflowTemplate{
			Name: "Partner Order Sync", Steps: []string{"validate", "transform", "store", "deliver"}, Priority: events.PriorityHigh}}},
		{"acme", "SUB_MGMT", nil},
	}
	for _, tt := range tests {
		t.Run(tt.provider+"/"+tt.eventType, func(t *testing.T) {
			r, ok := defaultProvider(t, tt.provider).Route(tt.eventType)
			if tt.want == nil {
				assert.False(t, ok)
				return
			}
			require.True(t, ok)
			assert.Equal(t, *tt.want, r)
		})
	}
}

func TestRouteOrderIsTheRuleFirstMatchWins(t *testing.T) {
	sync := &provider.WorkflowTemplate{Name: "Invoice Sync", Steps: []string{"store"}, Priority: events.PriorityLow}
	notify := &provider.WorkflowTemplate{Name: "Invoice Paid", Steps: []string{"notify"}, Priority: events.PriorityHigh}
	p := configured(t, provider.Provider{
		Name:      "stripe",
		Signature: provider.Signature{Scheme: provider.SchemeStripe},
		Routes: []provider.Route{
			{Match: "invoice.upcoming", Skip: true}, // carved out of the pattern below
			{Match: "invoice.*", Workflow: sync},
			{Match: "invoice.paid", Workflow: notify}, // never reached: the pattern above wins
			{Match: "*", Skip: true},
		},
	})

	tests := []struct {
		eventType string
		match     string
	}{
		{"invoice.upcoming", "invoice.upcoming"},
		{"invoice.finalized", "invoice.*"},
		{"invoice.paid", "invoice.*"},
		{"charge.refunded", "*"},
	}
	for _, tt := range tests {
		t.Run(tt.eventType, func(t *testing.T) {
			r, ok := p.Route(tt.eventType)
			require.True(t, ok)
			assert.Equal(t, tt.match, r.Match)
		})
	}
}

func TestTaskDataIsReadFromTheRedactedPayload(t *testing.T) {
	p := defaultProvider(t, "stripe")
	redacted, err := p.Redact(readFixture(t, "stripe-customer-created.json"))
	require.NoError(t, err)
	tt := provider.TaskTemplate{Type: events.TaskDataExport, Data: map[string]string{"customerId": "data.object.id", "email": "data.object.email"}}

	data, err := tt.BuildData(redacted)

	require.NoError(t, err)
	assert.JSONEq(t, `{"customerId":"cus_RXy7kQm2Lp9VbN","email":"[REDACTED]"}`, string(data))
}

func TestTaskDataKeepsJSONTypesAndNamesAMissingPath(t *testing.T) {
	payload := []byte(`{"data":{"object":{"id":"cus_1","balance":-1250,"email":"[REDACTED]","tags":["a"]}}}`)
	tests := []struct {
		name    string
		data    map[string]string
		want    string
		wantErr string
	}{
		{"no data", nil, `{}`, ""},
		{"string, number, array", map[string]string{"id": "data.object.id", "balance": "data.object.balance", "tags": "data.object.tags"},
			`{"id":"cus_1","balance":-1250,"tags":["a"]}`, ""},
		{"a redacted value stays redacted", map[string]string{"recipient": "data.object.email"}, `{"recipient":"[REDACTED]"}`, ""},
		{"missing path", map[string]string{"id": "data.object.id", "invoice": "data.object.invoice"}, "",
			`webhook: task data invoice: body field "data.object.invoice" is missing`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			task := provider.TaskTemplate{Type: events.TaskDataExport, Data: tt.data}
			got, err := task.BuildData(payload)
			if tt.wantErr != "" {
				require.EqualError(t, err, tt.wantErr)
				assert.ErrorIs(t, err, provider.ErrInvalidPayload)
				return
			}
			require.NoError(t, err)
			assert.JSONEq(t, tt.want, string(got))
		})
	}
}
