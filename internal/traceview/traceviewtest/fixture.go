// Package traceviewtest stores a whole trace for the trace view's tests:
// a webhook row, its events, a workflow with finished steps, a task that
// was retried, partner deliveries with their attempts and a dead letter,
// with the trace id set on each as the contract of issue 26 says, and a
// second trace beside it that must not show.
package traceviewtest

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/status"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/store/storetest"
)

// The trace ids the fixture stores.
const (
	TraceID = "4bf92f3577b34da6a3ce929d0e0e4736"
	OtherID = "0af7651916cd43dd8448eb211c80319c"
)

// Start is when the fixture's trace starts: the webhook's arrival.
var Start = time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)

// Trace is what the fixture stored: the ids of its things.
type Trace struct {
	WebhookID, WorkflowID, TaskID, OutboxID, LooseOutboxID, DeadLetterID string
	// Events are the trace's event ids by a name the tests use:
	// received, created, step0, step1, completed, taskCreated, taskFailed,
	// taskRetry, taskCompleted, rerun, replay, orphan, foreign.
	Events map[string]string
	// Other are the node ids of the other trace, none of which may show.
	Other []string
}

// Store stores the fixture in s, whose clock is clock (moved to stamp the
// outbox entries' created_at 38 ms into the trace); nil when s keeps the
// time of day (the entries are then created now).
func Store(t testing.TB, s *store.Store, clock *storetest.Clock) Trace {
	t.Helper()
	ctx := context.Background()
	at := func(ms int) time.Time { return Start.Add(time.Duration(ms) * time.Millisecond) }
	f := Trace{
		WebhookID:  store.WebhookEventID("stripe", "evt_trace_1"),
		WorkflowID: "wf-11111111-1111-4111-8111-111111111111", TaskID: "task-22222222-2222-4222-8222-222222222222",
		Events: map[string]string{},
	}
	f.OutboxID = store.OutboxID("evt-step-1", "acme")
	f.LooseOutboxID = store.OutboxID("evt-loose", "beta")

	_, err := s.InsertWebhookEvent(ctx, store.WebhookEvent{Provider: "stripe", ProviderEventID: "evt_trace_1",
		EventType: "invoice.finalized", ReceivedAt: Start, TraceID: TraceID, Payload: store.JSONDoc(`{"id":"evt_trace_1"}`)})
	require.NoError(t, err)

	meta := func(trace string) *events.Metadata {
		return &events.Metadata{Source: "test", TraceID: trace, CorrelationID: f.WebhookID}
	}
	env := func(name string, typ events.Type, ms int, payload map[string]any, m *events.Metadata) events.Envelope {
		raw, err := json.Marshal(payload)
		require.NoError(t, err)
		id := fmt.Sprintf("evt-%s-%d", name, ms)
		f.Events[name] = id
		return events.Envelope{EventType: typ, EventID: id, Timestamp: events.At(at(ms)), SchemaVersion: events.SchemaVersion,
			Payload: raw, Metadata: m}
	}
	wf := map[string]any{"workflowId": f.WorkflowID}
	task := func(retry int) map[string]any { return map[string]any{"taskId": f.TaskID, "retryCount": retry} }
	rerun, replay := meta(TraceID), meta(TraceID)
	rerun.Attempt = 2
	envs := []events.Envelope{
		env("received", events.WebhookReceived, 1, map[string]any{"webhookEventId": f.WebhookID, "provider": "stripe"}, meta(TraceID)),
		env("created", events.WorkflowCreated, 3, map[string]any{"workflowId": f.WorkflowID, "webhookEventId": f.WebhookID}, meta(TraceID)),
		env("taskCreated", events.TaskCreated, 5, task(0), meta(TraceID)),
		env("taskFailed", events.TaskFailed, 10, task(0), meta(TraceID)),
		env("step0", events.WorkflowStepCompleted, 20, map[string]any{"workflowId": f.WorkflowID, "stepIndex": 0}, meta(TraceID)),
		env("taskRetry", events.TaskProcessing, 30, task(1), meta(TraceID)),
		env("taskCompleted", events.TaskCompleted, 35, task(1), meta(TraceID)),
		env("step1", events.WorkflowStepCompleted, 40, map[string]any{"workflowId": f.WorkflowID, "stepIndex": 1}, meta(TraceID)),
		env("completed", events.WorkflowCompleted, 50, wf, meta(TraceID)),
		env("rerun", events.WorkflowCreated, 60, wf, rerun),
		// An event whose aggregate is not stored hangs at the root; one
		// whose aggregate belongs to another trace too, and that
		// aggregate does not show.
		env("orphan", events.WorkflowProcessing, 65, map[string]any{"workflowId": "wf-missing"}, meta(TraceID)),
		env("foreign", events.WorkflowProcessing, 66, map[string]any{"workflowId": "wf-other"}, meta(TraceID)),
	}
	replay.ReplayOf = f.Events["created"]
	envs = append(envs, env("replay", events.WorkflowCreated, 70, map[string]any{"workflowId": f.WorkflowID}, replay))
	// The other trace: its own webhook, event, workflow, delivery.
	envs = append(envs, env("otherEvent", events.WorkflowCreated, 2, map[string]any{"workflowId": "wf-other"}, meta(OtherID)))
	_, err = s.InsertEvents(ctx, envs)
	require.NoError(t, err)

	completed, started := at(50), at(4)
	_, err = s.SaveWorkflowCheckpoints(ctx, store.WorkflowCheckpoint{Workflow: store.Workflow{
		WorkflowID: f.WorkflowID, Name: "Invoice Sync", Steps: []string{"validate", "deliver"}, Priority: "high",
		Status: status.WorkflowCompleted, CurrentStepIndex: 2, CreatedAt: at(3), StartedAt: &started, CompletedAt: &completed,
		StepResults: []store.StepProgress{
			{StepName: "validate", StepIndex: 0, CompletedAt: at(20), Duration: 15},
			{StepName: "deliver", StepIndex: 1, CompletedAt: at(40), Duration: 18,
				Result: store.JSONDoc(fmt.Sprintf(`{"outboxId":%q,"target":"acme"}`, f.OutboxID))},
		},
		EventID: f.Events["created"], WebhookEventID: f.WebhookID, CorrelationID: f.WebhookID, TraceID: TraceID,
	}}, store.WorkflowCheckpoint{Workflow: store.Workflow{
		WorkflowID: "wf-other", Name: "Other", Steps: []string{"validate"}, Priority: "low", Status: status.WorkflowPending,
		CreatedAt: at(2), TraceID: OtherID,
	}})
	require.NoError(t, err)

	taskDone := at(35)
	_, err = s.SaveTaskOutcomes(ctx, store.TaskOutcome{Task: store.Task{TaskID: f.TaskID, Type: "send_email",
		Status: status.TaskCompleted, RetryCount: 1, MaxRetries: 3, CreatedAt: at(5), CompletedAt: &taskDone,
		EventID: f.Events["taskCreated"], WebhookEventID: f.WebhookID, CorrelationID: f.WebhookID, TraceID: TraceID}})
	require.NoError(t, err)

	// The delivery the deliver step enqueued, found by its step's result
	// (it carries no trace id, as before the field existed), and one of
	// the trace's found by its trace id alone.
	if clock != nil {
		clock.Advance(at(38).Sub(clock.Now()))
	}
	_, err = s.EnqueueOutbox(ctx, store.OutboxEntry{OutboxID: f.OutboxID, AggregateType: "workflow", AggregateID: f.WorkflowID,
		EventType: "invoice.synced", TargetProvider: "acme", Payload: store.JSONDoc(`{}`),
		DeliveryLog: []store.DeliveryAttempt{
			{At: at(41), DurationMs: 40, StatusCode: 500, Error: "HTTP 500", Outcome: status.OutboxFailed, SpanID: "00f067aa0ba902b7"},
			{At: at(90), DurationMs: 5, Error: "connection refused", Outcome: status.OutboxFailed},
			{At: at(150), DurationMs: 12, StatusCode: 200, Outcome: status.OutboxCompleted, SpanID: "00f067aa0ba902b8"},
		}},
		store.OutboxEntry{OutboxID: f.LooseOutboxID, AggregateType: "workflow", AggregateID: f.WorkflowID,
			EventType: "invoice.synced", TargetProvider: "beta", Payload: store.JSONDoc(`{}`), TraceID: TraceID},
		store.OutboxEntry{OutboxID: "ob-other", AggregateType: "workflow", AggregateID: "wf-other",
			EventType: "invoice.synced", TargetProvider: "acme", Payload: store.JSONDoc(`{}`), TraceID: OtherID})
	require.NoError(t, err)

	_, err = s.InsertWebhookEvent(ctx, store.WebhookEvent{Provider: "stripe", ProviderEventID: "evt_other",
		EventType: "invoice.paid", ReceivedAt: at(1), TraceID: OtherID, Payload: store.JSONDoc(`{}`)})
	require.NoError(t, err)

	f.DeadLetterID = store.DeadLetterID(events.TopicTasks, 0, 7)
	_, err = s.InsertDeadLetters(ctx, store.DeadLetterEntry{Processor: "task-processor", Topic: events.TopicTasks, Offset: 7,
		Value: []byte(`{}`), Reason: "processing-failed", Error: "smtp down", EventType: string(events.TaskFailed),
		EventID: f.Events["taskFailed"], AggregateID: f.TaskID, ReceivedAt: at(12)},
		store.DeadLetterEntry{Processor: "workflow-processor", Topic: events.TopicWorkflows, Offset: 9, Value: []byte(`{}`),
			Reason: "processing-failed", EventID: f.Events["otherEvent"], AggregateID: "wf-other", ReceivedAt: at(13)})
	require.NoError(t, err)

	f.Other = []string{"webhook:" + store.WebhookEventID("stripe", "evt_other"), "event:" + f.Events["otherEvent"],
		"workflow:wf-other", "delivery:ob-other", "deadletter:" + store.DeadLetterID(events.TopicWorkflows, 0, 9)}
	delete(f.Events, "otherEvent")
	return f
}
