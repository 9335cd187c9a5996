package workflow

import (
	"context"
	"encoding/json"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/fault"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/tracing"
)

// deliverParams is the "deliver" parameter.
type deliverParams struct {
	Target    string `json:"target"`
	EventType string `json:"eventType"`
}

// DefaultDeliveryEventType is the event_type of a delivery outbox entry when
// the input names none.
const DefaultDeliveryEventType = "workflow.records"

// DeliverStep enqueues one integration_outbox entry that delivers the records
// to a partner: the input's "deliver" parameter names the target (default:
// the partnerId of the webhook that started the workflow, which is a
// partner's configured partnerId, else its provider's name) and the event
// type. The
// outbox id is derived from the step's workflow.step.completed event id and
// the target (store.OutboxID), so the relay delivers it once. Records pass
// unchanged. No target fails the workflow with DELIVER_ERROR. The entry
// carries the step's trace context (ctx's traceparent and trace id), so
// the relay's delivery continues the workflow's trace.
func DeliverStep(ctx context.Context, in StepInput) (StepOutput, error) {
	var p deliverParams
	if _, err := in.Param("deliver", &p); err != nil {
		return StepOutput{}, fault.Permanent(CodeDeliver, "%w", err)
	}
	if p.Target == "" {
		p.Target = in.Workflow.PartnerID // the partner's one id (provider.Provider.PartnerID)
	}
	if p.Target == "" {
		p.Target = in.Workflow.Provider
	}
	if p.Target == "" {
		return StepOutput{}, fault.Permanent(CodeDeliver, "no delivery target: set input.deliver.target")
	}
	if p.EventType == "" {
		p.EventType = DefaultDeliveryEventType
	}
	records := in.Records
	if records == nil {
		records = []json.RawMessage{}
	}
	payload, err := json.Marshal(map[string]any{
		"workflowId": in.Workflow.ID, "workflowName": in.Workflow.Name, "records": records,
	})
	if err != nil {
		return StepOutput{}, err
	}
	traceparent, _ := tracing.Traceparent(ctx)
	outboxID := store.OutboxID(stepEventID(in.Workflow.ID, events.WorkflowStepCompleted, in.StepIndex), p.Target)
	in.Effects.EnqueueOutbox(store.OutboxEntry{
		OutboxID: outboxID, AggregateType: "workflow", AggregateID: in.Workflow.ID,
		EventType: p.EventType, TargetProvider: p.Target, Payload: store.JSONDoc(payload),
		TraceParent: traceparent, TraceID: tracing.TraceID(ctx),
	})
	n := len(in.Records)
	id, _ := json.Marshal(outboxID)
	target, _ := json.Marshal(p.Target)
	return StepOutput{Records: in.Records, Result: events.StepResult{
		RecordsProcessed: n, ValidRecords: n, Extra: map[string]json.RawMessage{"outboxId": id, "target": target},
	}}, nil
}
