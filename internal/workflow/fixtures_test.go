package workflow_test

import (
	"encoding/json"
	"testing"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/stream/streamtest"
)

// fixtures are the workflow-processor's own MSK batches; workflows-batch,
// poison-batch and tasks-batch come from package stream.
var fixtures = streamtest.Fixtures{
	// One workflow using all five built-in steps on four records, one of
	// which breaks the input's schema.
	"workflows-pipeline.json": streamtest.Submitted(11, func(t testing.TB, g *streamtest.Gen) events.Payload {
		input := json.RawMessage(`{
			"records": [
				{"order": {"id": "o-1", "total": 120.5}, "customer": {"email": "ann@example.com"}},
				{"order": {"id": "o-2", "total": 80}, "customer": {"email": "bob@example.com"}},
				{"order": {"id": "o-3", "total": "n/a"}, "customer": {}},
				{"order": {"id": "o-4", "total": 15}, "customer": {"email": "cy@example.com"}}
			],
			"schema": {"type": "object", "required": ["order"], "properties": {"order": {"type": "object",
				"required": ["id", "total"], "properties": {"total": {"type": "number", "minimum": 0}}}}},
			"mapping": {"orderId": "order.id", "amount": "order.total", "email": {"from": "customer.email", "default": null}},
			"dataset": "orders",
			"notify": {"recipient": "ops@example.com", "template": "workflow_notification"},
			"deliver": {"target": "acme", "eventType": "order.synced"}
		}`)
		return events.WorkflowCreatedPayload{
			WorkflowID: events.WorkflowIDPrefix + g.UUID(), Name: "Order Sync",
			Steps: []string{"validate", "transform", "store", "notify", "deliver"}, Priority: events.PriorityHigh,
			CreatedAt: g.Now(), Input: compact(t, input),
		}
	}),
	// A validate, transform, store workflow whose second record lacks the
	// field the transform maps: it fails in transform (index 1).
	"workflows-failing-step.json": streamtest.Submitted(12, func(t testing.TB, g *streamtest.Gen) events.Payload {
		input := json.RawMessage(`{"records": [{"sku": "A-1", "qty": 2}, {"qty": 5}], "mapping": {"sku": "sku", "quantity": "qty"}}`)
		return events.WorkflowCreatedPayload{
			WorkflowID: events.WorkflowIDPrefix + g.UUID(), Name: "Inventory Import",
			Steps: []string{"validate", "transform", "store"}, Priority: events.PriorityMedium,
			CreatedAt: g.Now(), Input: compact(t, input),
		}
	}),
}

func compact(t testing.TB, raw json.RawMessage) json.RawMessage {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	out, _ := json.Marshal(v)
	return out
}

func TestFixturesAreReproducible(t *testing.T) { streamtest.CheckAll(t, fixtures) }
