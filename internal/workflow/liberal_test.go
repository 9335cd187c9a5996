package workflow_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/status"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/stream"
	"github.com/streamops/streamops/internal/stream/streamtest"
	"github.com/streamops/streamops/internal/workflow"
)

// TestSeed003ExamplesOnTheWorkflowsTopicAreNeverDeadLettered: every event
// example of seed 003 that belongs on topic workflows, consumed by the
// workflow-processor as it arrives from its producer, is processed
// (workflow.created) or skipped (the lifecycle events), never
// dead-lettered; the workflows they start reach an end.
func TestSeed003ExamplesOnTheWorkflowsTopicAreNeverDeadLettered(t *testing.T) {
	examples := streamtest.SeedExamplesOf(t, events.TopicWorkflows)
	require.Len(t, examples, 7, "five workflow events, the Kafka message example and the test publish")
	for _, ex := range examples {
		t.Run(ex.Name, func(t *testing.T) {
			h := newHarness(t, nil)
			rec := ex.Record(t, streamtest.NewGen(31))

			require.NoError(t, h.Deliver(t, streamtest.Batch(rec)))
			assert.Empty(t, h.DeadLetters(t, store.DeadLetterQuery{}), "seed 003's own example is no poison record")
			assert.Empty(t, h.Env.Records(t, events.DLQTopic(events.TopicWorkflows)))
			var env events.Envelope
			require.NoError(t, json.Unmarshal([]byte(ex.Value), &env))
			if env.EventType == events.WorkflowCreated {
				assert.Contains(t, []string{status.WorkflowCompleted, status.WorkflowFailed}, h.workflow(t, env.AggregateID()).Status)
			}
		})
	}
}

// TestSeedTestPublishFailsItsWorkflowWithUnknownStep is seed 003's
// "Publish Test Event" end to end: workflow wf-test names step1, which
// StreamOps has no step for, so the workflow fails visibly (UNKNOWN_STEP
// naming step1 at index 0, in its stored state and its workflow.failed),
// and nothing reaches workflows.dlq.
func TestSeedTestPublishFailsItsWorkflowWithUnknownStep(t *testing.T) {
	h := newHarness(t, nil)
	rec := streamtest.SeedTestPublish(t).Record(t, streamtest.NewGen(32))
	require.Equal(t, "wf-test", string(rec.Key), "the kcat line's key")

	require.NoError(t, h.Deliver(t, streamtest.Batch(rec)))

	wf, err := h.Env.Store.GetWorkflow(context.Background(), "wf-test")
	require.NoError(t, err, "GET /api/workflows/wf-test reads this")
	assert.Equal(t, status.WorkflowFailed, wf.Status)
	require.NotNil(t, wf.Error)
	assert.Equal(t, workflow.CodeUnknownStep, wf.Error.Code)
	assert.Contains(t, wf.Error.Message, `"step1"`)
	assert.Equal(t, "test-1", wf.EventID, "the workflow names the event that started it")

	lifecycle := h.Lifecycle(t, "wf-test")
	require.Equal(t, []events.Type{events.WorkflowProcessing, events.WorkflowFailed}, typesOf(lifecycle))
	failed := streamtest.Payload[events.WorkflowFailedPayload](t, lifecycle[1])
	assert.Equal(t, "step1", failed.FailedStep)
	assert.Equal(t, 0, failed.FailedStepIndex)
	assert.Equal(t, workflow.CodeUnknownStep, failed.Error.Code)

	assert.Empty(t, h.DeadLetters(t, store.DeadLetterQuery{}))
	assert.Empty(t, h.Env.Records(t, events.DLQTopic(events.TopicWorkflows)), "nothing in workflows.dlq")

	history := h.History(t, "wf-test")
	require.Len(t, history, 3, "GET /api/events?aggregate_id=wf-test: the kcat event and what it caused")
	assert.Equal(t, []string{"test-1", lifecycle[0].EventID, lifecycle[1].EventID},
		[]string{history[0].EventID, history[1].EventID, history[2].EventID})
	assert.Equal(t, string(events.WorkflowCreated), history[0].EventType)
}

// forwardWorkflow is a workflow.created as a 1.x producer other than
// StreamOps may write it, as a JSON object to change per case.
func forwardWorkflow(id string) map[string]any {
	return map[string]any{
		"eventType": "workflow.created", "eventId": "evt-forward-1", "timestamp": "2026-01-04T01:00:00.000Z", "schemaVersion": "1.0.0",
		"payload": map[string]any{"workflowId": id, "name": "Forward", "steps": []string{"validate", "store"},
			"priority": "medium", "createdAt": "2026-01-04T01:00:00.000Z"},
		"metadata": map[string]any{"source": "partner-gateway"},
	}
}

// forwardRecord is forwardWorkflow(id) as change leaves it, and the
// record of topic workflows that carries it, placed by a Gen of seed.
func forwardRecord(t *testing.T, id string, seed byte, change func(doc map[string]any)) ([]byte, *kgo.Record) {
	t.Helper()
	doc := forwardWorkflow(id)
	change(doc)
	value, err := json.Marshal(doc)
	require.NoError(t, err)
	return value, streamtest.NewGen(seed).Place(&kgo.Record{Topic: events.TopicWorkflows, Key: []byte(id), Value: value}, 0)
}

// TestForwardCompatibleWorkflowCreatedCompletesAndKeepsAddedFields: what
// seed 003's evolution rule lets a newer 1.x producer write (an added
// field in the envelope, metadata or payload, a later minor version, no
// version, ids of its own) is run to completion, and the consumed envelope
// keeps every field it carried, so storing, dead-lettering or
// re-publishing it loses none.
func TestForwardCompatibleWorkflowCreatedCompletesAndKeepsAddedFields(t *testing.T) {
	tests := []struct {
		name   string
		id     string
		change func(doc map[string]any)
	}{
		{"an added envelope field", "wf-added-envelope", func(d map[string]any) { d["traceparent"] = "00-abc-01" }},
		{"an added metadata field", "wf-added-metadata", func(d map[string]any) {
			d["metadata"].(map[string]any)["tenant"] = map[string]any{"id": "acme", "tier": 2}
		}},
		{"an added payload field", "wf-added-payload", func(d map[string]any) { d["payload"].(map[string]any)["deadline"] = "2026-02-01" }},
		{"schemaVersion 1.4.0", "wf-minor", func(d map[string]any) { d["schemaVersion"] = "1.4.0" }},
		{"no schemaVersion (seed 003's implicit v1)", "wf-implicit", func(d map[string]any) { delete(d, "schemaVersion") }},
		{"ids of its own", "test-1", func(d map[string]any) { d["eventId"] = "evt-123" }},
		{"ids of the longest length", strings.Repeat("w", events.MaxIDLength), func(d map[string]any) {
			d["eventId"] = strings.Repeat("e", events.MaxIDLength)
		}},
		{"all of them", "wf-all", func(d map[string]any) {
			d["traceparent"], d["schemaVersion"], d["eventId"] = "00-abc-01", "1.9", "test-1"
			d["metadata"].(map[string]any)["region"] = "eu-west-1"
			d["payload"].(map[string]any)["labels"] = []string{"a", "b"}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			value, rec := forwardRecord(t, tt.id, 33, tt.change)
			h := newHarness(t, nil)
			ev := streamtest.Batch(rec)

			require.NoError(t, h.Deliver(t, ev))
			assert.Empty(t, h.DeadLetters(t, store.DeadLetterQuery{}))
			assert.Equal(t, status.WorkflowCompleted, h.workflow(t, tt.id).Status)

			// What the processor decoded re-encodes to what arrived.
			parts := stream.DecodeKafkaEvent(ev, stream.WithValidator(events.Consumed.Validate))
			require.Len(t, parts, 1)
			m := parts[0].Messages[0]
			require.NoError(t, m.Err)
			again, err := json.Marshal(m.Envelope)
			require.NoError(t, err)
			assert.JSONEq(t, string(value), string(again), "every field the producer wrote is kept")
		})
	}
}

// TestPoisonStaysPoisonForALiberalConsumer: what no 1.x producer writes
// is still dead-lettered, with the reason naming why: undecodable, a
// required field missing, a value of the wrong type, an id that is empty
// or too long, another major version.
func TestPoisonStaysPoisonForALiberalConsumer(t *testing.T) {
	tests := []struct {
		name   string
		change func(doc map[string]any)
		raw    string
		reason stream.Reason
	}{
		{name: "not JSON", raw: `{"eventType":"workflow.created",`, reason: stream.ReasonUndecodable},
		{name: "no eventId", change: func(d map[string]any) { delete(d, "eventId") }, reason: stream.ReasonUndecodable},
		{name: "no workflowId", change: func(d map[string]any) { delete(d["payload"].(map[string]any), "workflowId") }, reason: stream.ReasonSchemaInvalid},
		{name: "no steps", change: func(d map[string]any) { delete(d["payload"].(map[string]any), "steps") }, reason: stream.ReasonSchemaInvalid},
		{name: "steps a string", change: func(d map[string]any) { d["payload"].(map[string]any)["steps"] = "validate" }, reason: stream.ReasonSchemaInvalid},
		{name: "workflowId a number", change: func(d map[string]any) { d["payload"].(map[string]any)["workflowId"] = 42 }, reason: stream.ReasonSchemaInvalid},
		{name: "metadata a string", change: func(d map[string]any) { d["metadata"] = "partner" }, reason: stream.ReasonUndecodable},
		{name: "an empty eventId", change: func(d map[string]any) { d["eventId"] = "" }, reason: stream.ReasonUndecodable},
		{name: "an id past MaxIDLength", change: func(d map[string]any) {
			d["payload"].(map[string]any)["workflowId"] = strings.Repeat("w", events.MaxIDLength+1)
		}, reason: stream.ReasonSchemaInvalid},
		{name: "schemaVersion 2.0.0", change: func(d map[string]any) { d["schemaVersion"] = "2.0.0" }, reason: stream.ReasonUnsupportedVersion},
		{name: "schemaVersion not a version", change: func(d map[string]any) { d["schemaVersion"] = "latest" }, reason: stream.ReasonSchemaInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			value := []byte(tt.raw)
			if tt.change != nil {
				doc := forwardWorkflow("wf-poison")
				tt.change(doc)
				var err error
				value, err = json.Marshal(doc)
				require.NoError(t, err)
			}
			h := newHarness(t, nil)
			rec := streamtest.NewGen(34).Place(&kgo.Record{Topic: events.TopicWorkflows, Key: []byte("wf-poison"), Value: value}, 0)

			require.NoError(t, h.Deliver(t, streamtest.Batch(rec)), "a poison record never fails its batch")
			stored := h.DeadLetters(t, store.DeadLetterQuery{})
			require.Len(t, stored, 1)
			assert.Equal(t, string(tt.reason), stored[0].Reason)
			assert.Equal(t, value, stored[0].Value, "dead-lettered as it arrived")
		})
	}
}

// TestAWorkflowCreatedFromAnotherProducerIsStoredInTheHistory: seed 001's
// events collection holds every event, so a workflow.created another
// producer put straight on the topic (its workflow has no projection:
// StreamOps stores a workflow before publishing its event) is stored by the
// processor with every field it carries, published already, before the
// lifecycle it caused; a payload field named as one of the stored
// document's own fields is kept too.
func TestAWorkflowCreatedFromAnotherProducerIsStoredInTheHistory(t *testing.T) {
	tests := []struct {
		name   string
		id     string
		change func(doc map[string]any)
	}{
		{"added envelope, metadata and payload fields", "wf-history-added", func(d map[string]any) {
			d["traceparent"] = "00-abc-01"
			d["metadata"].(map[string]any)["tenant"] = map[string]any{"id": "acme", "tier": 2}
			d["payload"].(map[string]any)["deadline"] = "2026-02-01"
		}},
		{"payload fields named as the document's own", "wf-history-reserved", func(d map[string]any) {
			p := d["payload"].(map[string]any)
			p["timestamp"], p["metadata"], p["seq"], p["_id"] = "yesterday", map[string]any{"owner": "ops"}, 7, "mine"
			p["payload_reserved"] = true
		}},
		{"no metadata", "wf-history-bare", func(d map[string]any) { delete(d, "metadata") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			value, rec := forwardRecord(t, tt.id, 35, tt.change)
			h := newHarness(t, nil)

			require.NoError(t, h.Deliver(t, streamtest.Batch(rec)))
			assert.Equal(t, status.WorkflowCompleted, h.workflow(t, tt.id).Status)
			h.RequireConsumed(t, value)
			var types []string
			for _, d := range h.History(t, tt.id) {
				types = append(types, d.EventType)
			}
			assert.Equal(t, []string{"workflow.created", "workflow.processing", "workflow.step.completed",
				"workflow.step.completed", "workflow.completed"}, types)
		})
	}
}

// TestStoringConsumedWorkflowEventsCostsOneInsertPerBatch: the history
// write of consumed events is one insert per batch that has any, and none
// for the workflow.created StreamOps produced.
func TestStoringConsumedWorkflowEventsCostsOneInsertPerBatch(t *testing.T) {
	recs, cps := benchBatch(t, 9, 20)
	streamtest.RequireOneInsertForConsumed(t, events.WorkflowCreated, recs, func(own bool) *streamtest.Harness {
		h := newHarness(t, nil)
		if own {
			_, err := h.Env.Store.SaveWorkflowCheckpoints(context.Background(), cps...)
			require.NoError(t, err)
		}
		return h.Harness
	})
}
