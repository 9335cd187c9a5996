package workflow_test

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/events/eventstest"
	"github.com/streamops/streamops/internal/fault"
	"github.com/streamops/streamops/internal/status"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/stream"
	"github.com/streamops/streamops/internal/stream/streamtest"
	"github.com/streamops/streamops/internal/workflow"
)

func TestThreeStepWorkflowEmitsProcessingThreeStepsAndCompletedInOrder(t *testing.T) {
	h := newHarness(t, nil)
	ev := streamtest.Load(t, "workflows-batch.json")
	wfs := h.submitted(t, ev)
	require.Len(t, wfs, 1, "the fixture's other record is a lifecycle event the processor ignores")

	require.NoError(t, h.Deliver(t, ev))

	all := h.Env.Envelopes(t, events.TopicWorkflows)
	got := h.Lifecycle(t, wfs[0].WorkflowID)
	assert.Len(t, all, len(got), "nothing is emitted for the ignored workflow.processing")
	require.Equal(t, []events.Type{events.WorkflowProcessing, events.WorkflowStepCompleted, events.WorkflowStepCompleted,
		events.WorkflowStepCompleted, events.WorkflowCompleted}, typesOf(got))

	processing := streamtest.Payload[events.WorkflowProcessingPayload](t, got[0])
	assert.Equal(t, "validate", processing.CurrentStep)
	assert.Equal(t, 0, processing.CurrentStepIndex)
	for i, step := range []string{"validate", "transform", "store"} {
		p := streamtest.Payload[events.WorkflowStepCompletedPayload](t, got[i+1])
		assert.Equal(t, step, p.StepName)
		assert.Equal(t, i, p.StepIndex)
		assert.Positive(t, p.Duration)
	}
	done := streamtest.Payload[events.WorkflowCompletedPayload](t, got[4])
	assert.Equal(t, 3, done.StepsCompleted)
	assert.Positive(t, done.Duration)
	assert.Equal(t, events.WorkflowSummary{}, done.Summary, "a workflow without input has no records")
	assert.Equal(t, wfs[0].Name, done.Name, "a partner can subscribe to one workflow's completions by name")
	for _, e := range got {
		require.NotNil(t, e.Metadata)
		assert.Equal(t, "event-processor", e.Metadata.Source)
		assert.Equal(t, "worker-test", e.Metadata.ProcessorID)
	}

	wf := h.workflow(t, wfs[0].WorkflowID)
	assert.Equal(t, status.WorkflowCompleted, wf.Status)
	assert.Equal(t, 3, wf.CurrentStepIndex)
	assert.Len(t, wf.StepResults, 3)
	assert.NotNil(t, wf.StartedAt)
	assert.NotNil(t, wf.CompletedAt)
}

func TestFailingStepEmitsWorkflowFailedNamingTheStep(t *testing.T) {
	h := newHarness(t, nil)
	ev := streamtest.Load(t, "workflows-failing-step.json")
	wfs := h.submitted(t, ev)

	require.NoError(t, h.Deliver(t, ev), "a failed workflow is an outcome, not a batch failure")

	got := h.Lifecycle(t, wfs[0].WorkflowID)
	require.Equal(t, []events.Type{events.WorkflowProcessing, events.WorkflowStepCompleted, events.WorkflowFailed}, typesOf(got))
	failed := streamtest.Payload[events.WorkflowFailedPayload](t, got[2])
	assert.Equal(t, "transform", failed.FailedStep)
	assert.Equal(t, wfs[0].Name, failed.Name)
	assert.NotEmpty(t, failed.Name)
	assert.Equal(t, 1, failed.FailedStepIndex)
	assert.Equal(t, workflow.CodeTransform, failed.Error.Code)
	assert.Equal(t, `Invalid data format in record 1: field "sku" is missing`, failed.Error.Message)
	assert.Contains(t, failed.Error.Stack, "at step transform (index 1)")

	wf := h.workflow(t, wfs[0].WorkflowID)
	assert.Equal(t, status.WorkflowFailed, wf.Status)
	assert.Equal(t, workflow.CodeTransform, wf.Error.Code)
	assert.Len(t, wf.StepResults, 1, "only validate finished")
	assert.Zero(t, h.count(t, store.CollWorkflowRecords), "the store step never ran")
}

func TestPipelineRunsEveryBuiltinStepOnTheInputRecords(t *testing.T) {
	h := newHarness(t, nil)
	ev := streamtest.Load(t, "workflows-pipeline.json")
	wf := h.submitted(t, ev)[0]

	require.NoError(t, h.Deliver(t, ev))

	got := h.Lifecycle(t, wf.WorkflowID)
	require.Len(t, got, 7, "processing, five steps, completed")
	validate := streamtest.Payload[events.WorkflowStepCompletedPayload](t, got[1])
	assert.Equal(t, 4, validate.Result.RecordsProcessed)
	assert.Equal(t, 3, validate.Result.ValidRecords)
	assert.Equal(t, 1, validate.Result.InvalidRecords)
	assert.JSONEq(t, `[{"record":2,"path":"/order/total","keyword":"type"}]`, string(validate.Result.Extra["invalidSamples"]))
	done := streamtest.Payload[events.WorkflowCompletedPayload](t, got[6])
	assert.Equal(t, events.WorkflowSummary{TotalRecords: 4, SuccessfulRecords: 3, FailedRecords: 1}, done.Summary)

	recs, err := h.Env.Store.WorkflowRecords(context.Background(), wf.WorkflowID)
	require.NoError(t, err)
	require.Len(t, recs, 3)
	assert.Equal(t, "orders", recs[0].Dataset)
	assert.JSONEq(t, `{"amount":120.5,"email":"ann@example.com","orderId":"o-1"}`, string(recs[0].Record))

	tasks := h.Env.Envelopes(t, events.TopicTasks)
	require.Len(t, tasks, 1, "notify started one email task")
	task := streamtest.Payload[events.TaskCreatedPayload](t, tasks[0])
	assert.Equal(t, events.TaskEmailNotification, task.Type)
	assert.JSONEq(t, `{"recipient":"ops@example.com","subject":"Workflow Order Sync: 3 records","template":"workflow_notification",
		"workflowId":"`+wf.WorkflowID+`","workflowName":"Order Sync","records":3}`, string(task.Data))
	stored, err := h.Env.Store.GetTask(context.Background(), task.TaskID)
	require.NoError(t, err)
	assert.Equal(t, status.TaskPending, stored.Status)

	entry, err := h.Env.Store.GetOutboxEntry(context.Background(), deliveryOutboxID(wf.WorkflowID, 4, "acme"))
	require.NoError(t, err, "deliver enqueued one entry for acme, keyed by its step")
	assert.Equal(t, "order.synced", entry.EventType)
	assert.Equal(t, "workflow", entry.AggregateType)
	assert.Equal(t, wf.WorkflowID, entry.AggregateID, "aggregate_id is the workflow's own wf-{uuid} (docs/conformance.md)")
	assert.Equal(t, status.OutboxPending, entry.Status)
	assert.Contains(t, string(entry.Payload), `"orderId":"o-4"`)
}

// deliveryOutboxID is the outbox id the deliver step at stepIndex derives.
func deliveryOutboxID(workflowID string, stepIndex int, target string) string {
	stepEvent := events.DeriveID(events.EventIDPrefix, workflowID, string(events.WorkflowStepCompleted), strconv.Itoa(stepIndex))
	return store.OutboxID(stepEvent, target)
}

func TestSameBatchDeliveredTwiceProducesNoDuplicateEventsOrEffects(t *testing.T) {
	h := newHarness(t, nil)
	ev := streamtest.Load(t, "workflows-pipeline.json")
	wf := h.submitted(t, ev)[0]
	require.NoError(t, h.Deliver(t, ev))
	first := struct{ topic, tasksTopic, events, records, tasks int }{
		len(h.Env.Records(t, events.TopicWorkflows)), len(h.Env.Records(t, events.TopicTasks)),
		h.count(t, store.CollEvents), h.count(t, store.CollWorkflowRecords), h.count(t, store.CollTasks),
	}
	before := h.workflow(t, wf.WorkflowID)

	require.NoError(t, h.Deliver(t, ev))

	again := struct{ topic, tasksTopic, events, records, tasks int }{
		len(h.Env.Records(t, events.TopicWorkflows)), len(h.Env.Records(t, events.TopicTasks)),
		h.count(t, store.CollEvents), h.count(t, store.CollWorkflowRecords), h.count(t, store.CollTasks),
	}
	assert.Equal(t, first, again)
	assert.Equal(t, 7, first.topic)
	assert.Equal(t, before.UpdatedAt, h.workflow(t, wf.WorkflowID).UpdatedAt, "a completed workflow is skipped")
}

// lostCheckpoint is the store of a Lambda that dies after writing a
// batch's effects and events but before its checkpoints.
type lostCheckpoint struct {
	workflow.StateStore
	lost bool
}

func (l *lostCheckpoint) SaveWorkflowCheckpoints(ctx context.Context, cps ...store.WorkflowCheckpoint) (int, error) {
	if !l.lost {
		l.lost = true
		return 0, errors.New("connection reset by peer")
	}
	return l.StateStore.SaveWorkflowCheckpoints(ctx, cps...)
}

func TestRetriedBatchAfterALostCheckpointWritesEverythingOnce(t *testing.T) {
	h := newHarness(t, nil)
	svc, err := workflow.New(workflow.Config{Store: &lostCheckpoint{StateStore: h.Env.Store}, Runtime: h.Runtime(ticking())})
	require.NoError(t, err)
	h.Use(t, svc)
	ev := streamtest.Load(t, "workflows-pipeline.json")
	wf := h.submitted(t, ev)[0]

	require.Error(t, h.Deliver(t, ev))
	assert.Equal(t, status.WorkflowPending, h.workflow(t, wf.WorkflowID).Status, "the checkpoint was lost")
	published, stored := len(h.Env.Records(t, events.TopicWorkflows)), h.count(t, store.CollEvents)

	require.NoError(t, h.Deliver(t, ev), "the redelivery runs the steps again")

	assert.Equal(t, status.WorkflowCompleted, h.workflow(t, wf.WorkflowID).Status)
	assert.Equal(t, published, len(h.Env.Records(t, events.TopicWorkflows)), "no event is published twice")
	assert.Equal(t, stored, h.count(t, store.CollEvents), "no event is stored twice")
	assert.Equal(t, 3, h.count(t, store.CollWorkflowRecords))
	assert.Equal(t, 1, h.count(t, store.CollTasks))
}

func TestPoisonRecordBetweenTwoGoodOnesIsDeadLetteredAndBothAreProcessed(t *testing.T) {
	h := newHarness(t, nil)
	ev := streamtest.Load(t, "poison-batch.json")
	wfs := h.submitted(t, ev)
	require.Len(t, wfs, 2)

	require.NoError(t, h.Deliver(t, ev))

	for _, wf := range wfs {
		assert.Equal(t, status.WorkflowCompleted, h.workflow(t, wf.WorkflowID).Status, wf.Name)
		assert.Equal(t, events.WorkflowCompleted, typesOf(h.Lifecycle(t, wf.WorkflowID))[len(wf.Steps)+1])
	}
	dlq := h.Env.Records(t, events.DLQTopic(events.TopicWorkflows))
	require.Len(t, dlq, 2)
	var reasons []stream.Reason
	for _, r := range dlq {
		dl, ok := stream.ParseDeadLetter(r)
		require.True(t, ok)
		assert.Equal(t, events.TopicWorkflows, dl.OriginalTopic)
		assert.Equal(t, int32(1), dl.OriginalPartition)
		assert.NotEmpty(t, dl.Error)
		reasons = append(reasons, dl.Reason)
	}
	assert.ElementsMatch(t, []stream.Reason{stream.ReasonUndecodable, stream.ReasonSchemaInvalid}, reasons)

	stored := h.DeadLetters(t, store.DeadLetterQuery{Status: status.DeadLetterOpen})
	require.Len(t, stored, 2)
	for _, dl := range stored {
		assert.Equal(t, "workflow-processor", dl.Processor)
		assert.Equal(t, events.TopicWorkflows, dl.Topic)
		assert.NotEmpty(t, dl.Value)
		if dl.Reason == string(stream.ReasonSchemaInvalid) {
			assert.Equal(t, string(events.WorkflowCreated), dl.EventType, "a decodable poison record keeps its type")
			assert.Contains(t, dl.Error, "/payload/priority")
		}
	}

	require.NoError(t, h.Deliver(t, ev))
	assert.Len(t, h.DeadLetters(t, store.DeadLetterQuery{}), 2, "a redelivered poison record is stored once")
}

func TestMissingProjectionIsCreatedFromTheEvent(t *testing.T) {
	h := newHarness(t, nil)
	ev := streamtest.Load(t, "workflows-pipeline.json")

	require.NoError(t, h.Deliver(t, ev))

	got := h.Documents(t, store.CollWorkflows)
	require.Len(t, got, 1)
	assert.Contains(t, string(got[0]), `"name":"Order Sync"`)
	assert.Contains(t, string(got[0]), `"status":"completed"`)
	assert.Equal(t, 3, h.count(t, store.CollWorkflowRecords))
}

// flakyRegistry wraps the built-in steps, counting calls per workflow and
// failing transform transiently the first time it runs.
type flakyRegistry struct {
	calls map[string]*counts
}

func (f *flakyRegistry) registry() *workflow.Registry {
	return wrapSteps(func(name string, fn workflow.StepFunc) workflow.StepFunc {
		return func(ctx context.Context, in workflow.StepInput) (workflow.StepOutput, error) {
			n := f.calls[in.Workflow.ID].add(name, 1)
			if name == "transform" && n == 1 && in.Workflow.Name == "Flaky" {
				return workflow.StepOutput{}, fault.Transient(errors.New("lookup service unreachable"))
			}
			return fn(ctx, in)
		}
	}, "validate", "transform", "store")
}

func TestTransientStepFailureCheckpointsAndTheRetriedBatchResumesAtThatStep(t *testing.T) {
	f := &flakyRegistry{calls: map[string]*counts{}}
	h := newHarness(t, f.registry())
	g := streamtest.NewGen(21)
	input := eventstest.MustJSON(map[string]any{"records": []map[string]any{{"a": 1}, {"a": 2}}, "mapping": map[string]string{"b": "a"}})
	mk := func(name string, partition int32) events.WorkflowCreatedPayload {
		id := events.WorkflowIDPrefix + g.IDOnPartition(events.WorkflowIDPrefix, events.TopicWorkflows, partition)
		f.calls[id] = &counts{}
		return events.WorkflowCreatedPayload{WorkflowID: id, Name: name, Steps: []string{"validate", "transform", "store"},
			Priority: events.PriorityLow, CreatedAt: g.Now(), Input: input}
	}
	flaky, behind, elsewhere := mk("Flaky", 0), mk("Behind", 0), mk("Elsewhere", 1)
	ev := streamtest.Batch(
		g.Record(t, g.Envelope(t, flaky, streamtest.APIMetadata)),
		g.Record(t, g.Envelope(t, behind, streamtest.APIMetadata)),
		g.Record(t, g.Envelope(t, elsewhere, streamtest.APIMetadata)))
	h.submitted(t, ev)

	err := h.Deliver(t, ev)
	require.Error(t, err, "a transient failure fails the batch so Lambda delivers it again")
	assert.True(t, fault.IsRetryable(err))
	cp := h.workflow(t, flaky.WorkflowID)
	assert.Equal(t, status.WorkflowProcessing, cp.Status)
	assert.Equal(t, 1, cp.CurrentStepIndex, "checkpointed at the failed step")
	assert.Len(t, cp.ResumeRecords, 2)
	assert.Equal(t, status.WorkflowPending, h.workflow(t, behind.WorkflowID).Status, "the partition stops at the failure")
	assert.Equal(t, status.WorkflowCompleted, h.workflow(t, elsewhere.WorkflowID).Status, "other partitions finish")

	require.NoError(t, h.Deliver(t, ev))

	assert.Equal(t, map[string]int{"validate": 1, "transform": 2, "store": 1}, f.calls[flaky.WorkflowID].all(), "the finished step is not run again")
	assert.Equal(t, map[string]int{"validate": 1, "transform": 1, "store": 1}, f.calls[elsewhere.WorkflowID].all())
	got := h.Lifecycle(t, flaky.WorkflowID)
	assert.Equal(t, []events.Type{events.WorkflowProcessing, events.WorkflowStepCompleted, events.WorkflowProcessing,
		events.WorkflowStepCompleted, events.WorkflowStepCompleted, events.WorkflowCompleted}, typesOf(got))
	assert.Equal(t, 1, streamtest.Payload[events.WorkflowProcessingPayload](t, got[2]).CurrentStepIndex, "resumed at transform")
	done := streamtest.Payload[events.WorkflowCompletedPayload](t, got[5])
	assert.Equal(t, events.WorkflowSummary{TotalRecords: 2, SuccessfulRecords: 2}, done.Summary)
	recs, err := h.Env.Store.WorkflowRecords(context.Background(), flaky.WorkflowID)
	require.NoError(t, err)
	require.Len(t, recs, 2)
	assert.JSONEq(t, `{"b":1}`, string(recs[0].Record), "the resumed step read the checkpointed records")
	assert.Len(t, h.Lifecycle(t, elsewhere.WorkflowID), 5, "nothing of the finished workflow is emitted twice")
	assert.Equal(t, status.WorkflowCompleted, h.workflow(t, behind.WorkflowID).Status)
}

func TestAStepThatStaysDownFailsItsWorkflowAfterMaxStepAttempts(t *testing.T) {
	const maxAttempts = 3
	// Transient failures per workflow name, counted down: each call takes
	// one, and a workflow with none left (below zero) runs.
	outages := &counts{m: map[string]int{"Down": 1 << 30, "Recovers": maxAttempts - 1}}
	steps := wrapSteps(func(_ string, transform workflow.StepFunc) workflow.StepFunc {
		return func(ctx context.Context, in workflow.StepInput) (workflow.StepOutput, error) {
			if outages.add(in.Workflow.Name, -1) >= 0 {
				return workflow.StepOutput{}, fault.Transient(errors.New("lookup service unreachable"))
			}
			return transform(ctx, in)
		}
	}, "transform")
	h := newHarness(t, steps)
	svc, err := workflow.New(workflow.Config{Store: h.Env.Store, Steps: steps,
		MaxStepAttempts: maxAttempts, Runtime: stream.Runtime{Emitter: h.Env.Emitter, Clock: ticking(), Logger: h.Env.Logger}})
	require.NoError(t, err)
	h.Use(t, svc)
	g := streamtest.NewGen(23)
	input := eventstest.MustJSON(map[string]any{"records": []map[string]any{{"a": 1}}})
	var wfs []events.WorkflowCreatedPayload
	var recs []*kgo.Record
	for _, name := range []string{"Down", "Recovers", "Behind"} {
		// One partition: a failure holds up those behind it.
		id := events.WorkflowIDPrefix + g.IDOnPartition(events.WorkflowIDPrefix, events.TopicWorkflows, 0)
		wf := events.WorkflowCreatedPayload{WorkflowID: id, Name: name,
			Steps: []string{"validate", "transform", "store"}, Priority: events.PriorityLow, CreatedAt: g.Now(), Input: input}
		wfs = append(wfs, wf)
		recs = append(recs, g.Record(t, g.Envelope(t, wf, streamtest.APIMetadata)))
	}
	ev := streamtest.Batch(recs...)
	h.submitted(t, ev)
	down, recovers, behind := wfs[0].WorkflowID, wfs[1].WorkflowID, wfs[2].WorkflowID

	for attempt := 1; attempt < maxAttempts; attempt++ {
		err := h.Deliver(t, ev)
		require.Error(t, err, "delivery %d: a transient failure fails the batch", attempt)
		cp := h.workflow(t, down)
		assert.Equal(t, status.WorkflowProcessing, cp.Status)
		assert.Equal(t, attempt, cp.StepAttempts)
		assert.Equal(t, 1, cp.CurrentStepIndex)
		assert.Equal(t, status.WorkflowPending, h.workflow(t, behind).Status)
	}
	require.Error(t, h.Deliver(t, ev), "Down fails for good and the batch goes on to Recovers, whose first failure fails it")
	assert.Equal(t, status.WorkflowFailed, h.workflow(t, down).Status)
	require.Error(t, h.Deliver(t, ev), "Recovers fails a second time")
	assert.Equal(t, maxAttempts-1, h.workflow(t, recovers).StepAttempts)
	require.NoError(t, h.Deliver(t, ev))

	failed := h.workflow(t, down)
	assert.Equal(t, status.WorkflowFailed, failed.Status)
	require.NotNil(t, failed.Error)
	assert.Equal(t, workflow.CodeRetriesExhausted, failed.Error.Code)
	assert.Contains(t, failed.Error.Message, "lookup service unreachable")
	assert.Equal(t, maxAttempts, failed.StepAttempts)
	got := h.Lifecycle(t, down)
	require.NotEmpty(t, got)
	last := got[len(got)-1]
	require.Equal(t, events.WorkflowFailed, last.EventType)
	fp := streamtest.Payload[events.WorkflowFailedPayload](t, last)
	assert.Equal(t, "transform", fp.FailedStep)
	assert.Equal(t, workflow.CodeRetriesExhausted, fp.Error.Code)

	ok := h.workflow(t, recovers)
	assert.Equal(t, status.WorkflowCompleted, ok.Status, "fewer failures in a row than the limit: it finishes")
	assert.Zero(t, ok.StepAttempts, "a completed step resets the count")
	assert.Equal(t, status.WorkflowCompleted, h.workflow(t, behind).Status, "the partition moves on")
}

func TestWebhookRoutedWorkflowSettlesItsWebhookEvent(t *testing.T) {
	h := newHarness(t, nil)
	ctx := context.Background()
	g := streamtest.NewGen(22)
	var batch []events.Envelope
	hooks := map[string]string{}
	for _, tc := range []struct{ name, steps string }{{"Partner Order Sync", "validate,deliver"}, {"Broken", "validate,explode"}} {
		hook, err := h.Env.Store.InsertWebhookEvent(ctx, store.WebhookEvent{Provider: "acme", ProviderEventID: tc.name, EventType: "OR_PLC",
			Payload: store.JSONDoc(`{"order":{"id":"o-9"}}`)})
		require.NoError(t, err)
		require.NoError(t, h.Env.Store.SetWebhookStatus(ctx, hook.EventID, status.WebhookProcessing, ""))
		wf := events.WorkflowCreatedPayload{WorkflowID: events.WorkflowIDPrefix + g.UUID(), Name: tc.name,
			Steps: splitSteps(tc.steps), Priority: events.PriorityHigh, CreatedAt: g.Now(), Input: []byte(`{"order":{"id":"o-9"}}`)}
		batch = append(batch, g.Envelope(t, wf, &events.Metadata{Source: "webhook", CorrelationID: hook.EventID, APIVersion: "1.0.0"}))
		hooks[tc.name] = hook.EventID
	}
	ev := streamtest.Batch(g.Record(t, batch[0]), g.Record(t, batch[1]))
	wfs := h.submitted(t, ev)

	require.NoError(t, h.Deliver(t, ev))

	ok, err := h.Env.Store.GetWebhookEvent(ctx, hooks["Partner Order Sync"])
	require.NoError(t, err)
	assert.Equal(t, status.WebhookCompleted, ok.Status)
	_, err = h.Env.Store.GetOutboxEntry(ctx, deliveryOutboxID(wfs[0].WorkflowID, 1, "acme"))
	assert.NoError(t, err, "deliver defaults its target to the provider that sent the webhook")
	broken, err := h.Env.Store.GetWebhookEvent(ctx, hooks["Broken"])
	require.NoError(t, err)
	assert.Equal(t, status.WebhookFailed, broken.Status)
	assert.Contains(t, broken.ErrorMessage, "explode")
	failed := h.Lifecycle(t, wfs[1].WorkflowID)
	assert.Equal(t, workflow.CodeUnknownStep, streamtest.Payload[events.WorkflowFailedPayload](t, failed[len(failed)-1]).Error.Code)
	for _, e := range h.Lifecycle(t, wfs[0].WorkflowID) {
		assert.Equal(t, hooks["Partner Order Sync"], e.Metadata.CorrelationID, "the execution id carries through")
	}
}

func splitSteps(s string) []string {
	var out []string
	start := 0
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == ',' {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return out
}

func TestUnreachableStoreFailsTheBatch(t *testing.T) {
	h := newHarness(t, nil)
	ev := streamtest.Load(t, "workflows-batch.json")
	require.NoError(t, h.Env.Store.Close(context.Background()))

	assert.Error(t, h.Deliver(t, ev), "Lambda must deliver the batch again")
}

func TestPanickingOrMisbehavingStepFailsItsWorkflowNotTheBatch(t *testing.T) {
	r := workflow.BuiltinSteps()
	r.Register("validate", func(context.Context, workflow.StepInput) (workflow.StepOutput, error) { panic("nil map") })
	r.Register("transform", func(_ context.Context, in workflow.StepInput) (workflow.StepOutput, error) {
		return workflow.StepOutput{Records: []json.RawMessage{json.RawMessage(`[1]`)}}, nil
	})
	h := newHarness(t, r)
	g := streamtest.NewGen(23)
	mk := func(step string) events.WorkflowCreatedPayload {
		return events.WorkflowCreatedPayload{WorkflowID: events.WorkflowIDPrefix + g.UUID(), Name: step,
			Steps: []string{step}, Priority: events.PriorityLow, CreatedAt: g.Now()}
	}
	panics, misbehaves := mk("validate"), mk("transform")
	ev := streamtest.Batch(g.Record(t, g.Envelope(t, panics, streamtest.APIMetadata)), g.Record(t, g.Envelope(t, misbehaves, streamtest.APIMetadata)))

	require.NoError(t, h.Deliver(t, ev))

	for wf, code := range map[string]string{panics.WorkflowID: workflow.CodeStepPanic, misbehaves.WorkflowID: workflow.CodeInvalidResult} {
		got := h.Lifecycle(t, wf)
		require.Len(t, got, 2)
		failed := streamtest.Payload[events.WorkflowFailedPayload](t, got[1])
		assert.Equal(t, code, failed.Error.Code)
		if code == workflow.CodeStepPanic {
			assert.Contains(t, failed.Error.Stack, "goroutine", "a panic reports its stack")
		}
	}
}

func TestDuplicateRecordInOneBatchRunsTheWorkflowOnce(t *testing.T) {
	h := newHarness(t, nil)
	g := streamtest.NewGen(24)
	env := g.Envelope(t, events.WorkflowCreatedPayload{WorkflowID: events.WorkflowIDPrefix + g.UUID(), Name: "Twice",
		Steps: []string{"validate"}, Priority: events.PriorityLow, CreatedAt: g.Now()}, streamtest.APIMetadata)
	ev := streamtest.Batch(g.Record(t, env), g.Record(t, env)) // a producer retry: same event, next offset
	wf := h.submitted(t, streamtest.Batch(g.Record(t, env)))[0]

	require.NoError(t, h.Deliver(t, ev))

	assert.Equal(t, []events.Type{events.WorkflowProcessing, events.WorkflowStepCompleted, events.WorkflowCompleted},
		typesOf(h.Lifecycle(t, wf.WorkflowID)))
}
