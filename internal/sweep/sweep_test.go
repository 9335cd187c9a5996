package sweep_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/emit"
	"github.com/streamops/streamops/internal/ingest"
	"github.com/streamops/streamops/internal/provider"
	"github.com/streamops/streamops/internal/status"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/store/storetest"
	"github.com/streamops/streamops/internal/sweep"
	"github.com/streamops/streamops/internal/task"
	"github.com/streamops/streamops/internal/testenv"
	"github.com/streamops/streamops/internal/tracing"
)

type harness struct {
	*testenv.Env
	clock   *storetest.Clock
	router  *ingest.Service
	sweeper *sweep.Sweeper
}

func newHarness(t *testing.T) *harness {
	clock := storetest.NewClock()
	env := testenv.New(t, testenv.Options{Store: store.Config{Now: clock.Now}})
	reg, err := provider.LoadProviders("")
	require.NoError(t, err)
	router, err := ingest.New(ingest.Config{Providers: reg, Secrets: provider.EnvSecrets{}, Store: env.Store,
		Emitter: env.Emitter, Now: clock.Now, Logger: env.Logger})
	require.NoError(t, err)
	retrier, err := task.NewRetrier(env.Store, env.Bus, env.Emitter, env.Logger)
	require.NoError(t, err)
	sw, err := sweep.New(sweep.Config{Store: env.Store, Publisher: env.Bus, Router: router, Tasks: retrier, Now: clock.Now, Logger: env.Logger})
	require.NoError(t, err)
	return &harness{Env: env, clock: clock, router: router, sweeper: sw}
}

// run runs the sweeps once; the run must not fail.
func (h *harness) run(t *testing.T) sweep.Stats {
	t.Helper()
	st, err := h.sweeper.Run(t.Context())
	require.NoError(t, err)
	return st
}

func TestSweeperPublishesWhatTheInlinePathLeft(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	env, err := events.NewEvent(events.WorkflowCreatedPayload{WorkflowID: events.NewWorkflowID(), Name: "n",
		Steps: []string{"validate"}, Priority: events.PriorityLow, CreatedAt: events.Now()}, nil)
	require.NoError(t, err)
	require.NoError(t, h.Store.InsertEvent(ctx, env)) // stored, the publish never happened

	st := h.run(t)
	assert.Zero(t, st.Published, "younger than 30 s: the inline path may still publish it")

	h.clock.Advance(31 * time.Second)
	st = h.run(t)
	assert.Equal(t, 1, st.Published)
	published := h.Envelopes(t, events.TopicWorkflows)
	require.Len(t, published, 1)
	assert.Equal(t, env.EventID, published[0].EventID)
	assert.JSONEq(t, string(env.Payload), string(published[0].Payload))

	st = h.run(t)
	assert.Zero(t, st.Published, "published once")
}

func TestSweeperRoutesWebhookEventsACrashLeftReceived(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	payload, _ := json.Marshal(map[string]any{"id": "in_1", "type": "invoice.paid", "data": map[string]any{"object": map[string]any{"id": "in_1"}}})
	ev, err := h.Store.InsertWebhookEvent(ctx, store.WebhookEvent{Provider: "stripe", ProviderEventID: "evt_crash",
		EventType: "invoice.paid", Payload: store.JSONDoc(payload)})
	require.NoError(t, err)

	h.clock.Advance(3 * time.Minute)
	st := h.run(t)
	assert.Equal(t, 1, st.WebhooksRouted)
	got, err := h.Store.GetWebhookEvent(ctx, ev.EventID)
	require.NoError(t, err)
	assert.Equal(t, status.WebhookProcessing, got.Status)
	wfs := h.Envelopes(t, events.TopicWorkflows)
	require.Len(t, wfs, 1)
	assert.Equal(t, ev.EventID, wfs[0].Metadata.CorrelationID)

	st = h.run(t)
	assert.Zero(t, st.WebhooksRouted, "a routed event is left alone")
}

// TestSweeperNeverResendsADeadLetteredPartnerDelivery: a dead-lettered
// delivery whose partner event still says FAILED with fewer than five
// attempts (seed 000's "Failed Events for Retry" selects it: a document
// from before DEAD_LETTER, or a relay that died before recording) is
// given its final status; its outbox entry stays a dead letter.
func TestSweeperNeverResendsADeadLetteredPartnerDelivery(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	id := store.OutboxID("evt-1", "acme")
	_, err := h.Store.EnqueueOutbox(ctx, store.OutboxEntry{OutboxID: id, TargetProvider: "acme", EventType: "OR_MGMT",
		AggregateID: "order-1", Payload: store.JSONDoc(`{"x":1}`)})
	require.NoError(t, err)
	claimed, err := h.Store.ClaimDue(ctx, h.clock.Now(), time.Minute, 1)
	require.NoError(t, err)
	require.NoError(t, h.Store.DeadLetter(ctx, claimed[0], "HTTP 410"))
	_, err = h.Store.InsertPartnerEvent(ctx, store.PartnerEvent{ID: "pe-1", EventType: "OR_MGMT", EventStatus: status.PartnerFailed,
		EventDirection: status.DirectionOut, OutboxID: id, EntityMetadata: store.PartnerEntityMetadata{PartnerID: "acme",
			EntityID: "order-1", ResilienceAttemptCount: map[string]string{"1": "1"}}})
	require.NoError(t, err)

	for run := range 3 {
		st := h.run(t)
		assert.Equal(t, map[bool]int{true: 1, false: 0}[run == 0], st.PartnerReconciled, "run %d", run)
		h.clock.Advance(time.Minute)
		again, err := h.Store.ClaimDue(ctx, h.clock.Now(), time.Minute, 1)
		require.NoError(t, err)
		assert.Empty(t, again, "a dead letter is never due again")
	}
	entry, err := h.Store.GetOutboxEntry(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, status.OutboxDeadLetter, entry.Status)
	assert.Equal(t, 1, entry.Attempts)
	ev, err := h.Store.GetPartnerEvent(ctx, "pe-1")
	require.NoError(t, err)
	assert.Equal(t, status.PartnerDeadLetter, ev.EventStatus)
	left, err := h.Store.FailedPartnerEventsForRetry(ctx, 0)
	require.NoError(t, err)
	assert.Empty(t, left, "seed 000's retry query no longer selects it")
}

// stalledCase stores one item, lets time pass, and says what one sweeper
// run must re-drive: the stats and the stored events it publishes again.
type stalledCase struct {
	name string
	// setup stores the item at the clock's time and returns the ids of the
	// events the run must publish again (none: it must publish nothing).
	setup   func(t *testing.T, h *harness) []string
	advance time.Duration
	want    sweep.Stats
	// webhookStatus, when set, is the status the webhook row of the case
	// must have after the run.
	webhookStatus string
}

// createdWorkflow stores a workflow and its workflow.created event (stored
// and published, as the API does) and returns both ids.
func createdWorkflow(t *testing.T, h *harness) (workflowID, eventID string) {
	t.Helper()
	return createdWorkflowIn(t, h, true)
}

// createdWorkflowIn is createdWorkflow whose event carries the workflow's
// trace id only when eventTraced (else it was stored before traces were
// kept).
func createdWorkflowIn(t *testing.T, h *harness, eventTraced bool) (workflowID, eventID string) {
	t.Helper()
	ctx := context.Background()
	p := events.WorkflowCreatedPayload{WorkflowID: events.NewWorkflowID(), Name: "Invoice Sync",
		Steps: []string{"validate", "transform", "notify"}, Priority: events.PriorityLow, CreatedAt: events.At(h.clock.Now())}
	trace := newTraceID()
	md := &events.Metadata{Source: "api-gateway", TraceID: trace}
	if !eventTraced {
		md.TraceID = ""
	}
	env, err := events.NewEvent(p, md)
	require.NoError(t, err)
	_, err = h.Store.CreateWorkflow(ctx, store.Workflow{WorkflowID: p.WorkflowID, Name: p.Name, Steps: p.Steps,
		Priority: string(p.Priority), EventID: env.EventID, CreatedAt: h.clock.Now(), TraceID: trace})
	require.NoError(t, err)
	_, err = h.Emitter.Emit(ctx, env)
	require.NoError(t, err)
	return p.WorkflowID, env.EventID
}

// checkpoint moves a stored workflow to status to at step.
func checkpoint(t *testing.T, h *harness, workflowID, to string, step int) {
	t.Helper()
	wf, err := h.Store.GetWorkflow(context.Background(), workflowID)
	require.NoError(t, err)
	cp := store.WorkflowCheckpoint{Workflow: wf}
	cp.Status, cp.CurrentStepIndex = to, step
	if to == status.WorkflowCompleted {
		done := h.clock.Now()
		cp.CompletedAt = &done
	}
	_, err = h.Store.SaveWorkflowCheckpoints(context.Background(), cp)
	require.NoError(t, err)
}

// newTraceID is a new random W3C trace id.
func newTraceID() string {
	ctx, span := tracing.Start(context.Background(), "test")
	span.End()
	return tracing.TraceID(ctx)
}

// traceOf is the TraceID the store keeps for the workflow or task id ("" when neither is stored).
func traceOf(t *testing.T, h *harness, id string) string {
	t.Helper()
	if wf, err := h.Store.GetWorkflow(context.Background(), id); err == nil {
		return wf.TraceID
	}
	if tk, err := h.Store.GetTask(context.Background(), id); err == nil {
		return tk.TraceID
	}
	return ""
}

// createdTask stores a task and its task.created event.
func createdTask(t *testing.T, h *harness) (taskID, eventID string) {
	t.Helper()
	ctx := context.Background()
	p := events.TaskCreatedPayload{TaskID: events.NewTaskID(), Type: "email_notification",
		Data: json.RawMessage(`{"recipient":"ops@example.com","subject":"s","body":"b"}`), MaxRetries: 3,
		CreatedAt: events.At(h.clock.Now())}
	trace := newTraceID()
	env, err := events.NewEvent(p, &events.Metadata{Source: "api-gateway", TraceID: trace})
	require.NoError(t, err)
	_, err = h.Store.CreateTask(ctx, store.Task{TaskID: p.TaskID, Type: string(p.Type), Data: store.JSONDoc(p.Data),
		MaxRetries: 3, EventID: env.EventID, CreatedAt: h.clock.Now(), TraceID: trace})
	require.NoError(t, err)
	_, err = h.Emitter.Emit(ctx, env)
	require.NoError(t, err)
	return p.TaskID, env.EventID
}

// redeliveredTask stores a task whose attempt 0 failed, with the
// task.failed that scheduled retry 1, and marks that retry redelivered as
// the sweeper does: the task is pending at retryCount 1. It returns the
// task.failed's id.
func redeliveredTask(t *testing.T, h *harness) string {
	t.Helper()
	ctx := context.Background()
	id, _ := createdTask(t, h)
	next := h.clock.Now().Add(15 * time.Second)
	lastErr := events.TaskError{Code: "SMTP_ERROR", Message: "timeout", Retryable: true}
	failed, err := events.NewEventAt(events.TaskFailedPayload{TaskID: id, FailedAt: events.At(h.clock.Now()), RetryCount: 1,
		MaxRetries: 3, Error: lastErr, NextRetryAt: events.At(next)}, &events.Metadata{Source: "event-processor"},
		events.DeriveID(events.EventIDPrefix, id, string(events.TaskFailed), "0"), events.At(h.clock.Now()))
	require.NoError(t, err)
	_, err = h.Emitter.Emit(ctx, failed)
	require.NoError(t, err)
	n, err := h.Store.SaveTaskOutcomes(ctx, store.TaskOutcome{Task: store.Task{TaskID: id, Status: status.TaskFailed,
		RetryCount: 1, NextRetryAt: &next, LastError: &lastErr}})
	require.NoError(t, err)
	require.Equal(t, 1, n)
	n, err = h.Store.MarkTaskRetriesRedelivered(ctx, store.TaskAttempt{TaskID: id, RetryCount: 1})
	require.NoError(t, err)
	require.Equal(t, 1, n)
	return failed.EventID
}

// routedWebhook stores a Stripe invoice.paid delivery and routes it as the
// webhook function does: its row is processing and its workflow pending.
func routedWebhook(t *testing.T, h *harness, route bool) (row store.WebhookEvent, workflowEventID string) {
	t.Helper()
	ctx := context.Background()
	id := "evt_" + events.NewWebhookEventID()
	payload, _ := json.Marshal(map[string]any{"id": id, "type": "invoice.paid", "data": map[string]any{"object": map[string]any{"id": "in_1"}}})
	row, err := h.Store.InsertWebhookEvent(ctx, store.WebhookEvent{Provider: "stripe", ProviderEventID: id,
		EventType: "invoice.paid", Payload: store.JSONDoc(payload)})
	require.NoError(t, err)
	if !route {
		return row, ""
	}
	require.NoError(t, h.router.Route(ctx, row))
	row, err = h.Store.GetWebhookEvent(ctx, row.EventID)
	require.NoError(t, err)
	require.Equal(t, status.WebhookProcessing, row.Status)
	wf, _, err := h.Store.WorkStartedBy(ctx, row)
	require.NoError(t, err)
	require.NotNil(t, wf)
	return row, wf.EventID
}

func TestSweeperRedrivesWhatStalledAndNothingElse(t *testing.T) {
	var webhookRow string // the case's webhook row, for webhookStatus
	stall := sweep.DefaultStallAfter + time.Minute
	cases := []stalledCase{
		{name: "stalled pending workflow", advance: stall, want: sweep.Stats{WorkflowsRedriven: 1},
			setup: func(t *testing.T, h *harness) []string {
				_, ev := createdWorkflow(t, h)
				return []string{ev}
			}},
		{name: "stalled processing workflow", advance: stall, want: sweep.Stats{WorkflowsRedriven: 1},
			setup: func(t *testing.T, h *harness) []string {
				wf, ev := createdWorkflow(t, h)
				checkpoint(t, h, wf, status.WorkflowProcessing, 1)
				return []string{ev}
			}},
		{name: "stalled workflow whose stored event has no traceId: re-driven in the workflow's trace", advance: stall,
			want: sweep.Stats{WorkflowsRedriven: 1},
			setup: func(t *testing.T, h *harness) []string {
				_, ev := createdWorkflowIn(t, h, false)
				return []string{ev}
			}},
		{name: "stalled pending task", advance: stall, want: sweep.Stats{TasksRedriven: 1},
			setup: func(t *testing.T, h *harness) []string {
				_, ev := createdTask(t, h)
				return []string{ev}
			}},
		{name: "stalled processing task", advance: stall, want: sweep.Stats{TasksRedriven: 1},
			setup: func(t *testing.T, h *harness) []string {
				id, ev := createdTask(t, h)
				task, err := h.Store.GetTask(context.Background(), id)
				require.NoError(t, err)
				task.Status = status.TaskProcessing
				n, err := h.Store.SaveTaskOutcomes(context.Background(), store.TaskOutcome{Task: task})
				require.NoError(t, err)
				require.Equal(t, 1, n)
				return []string{ev}
			}},
		{name: "stalled pending task at a retry: its task.failed, not its task.created", advance: stall,
			want: sweep.Stats{TasksRedriven: 1},
			setup: func(t *testing.T, h *harness) []string {
				return []string{redeliveredTask(t, h)}
			}},
		{name: "fresh pending task at a retry", advance: time.Minute,
			setup: func(t *testing.T, h *harness) []string {
				redeliveredTask(t, h)
				return nil
			}},
		{name: "stalled received webhook row", advance: stall, want: sweep.Stats{WebhooksRouted: 1},
			webhookStatus: status.WebhookProcessing,
			setup: func(t *testing.T, h *harness) []string {
				row, _ := routedWebhook(t, h, false)
				webhookRow = row.EventID
				return []string{"*"} // the workflow.created routing derives
			}},
		{name: "stalled processing webhook row and its workflow, driven once",
			advance: stall, want: sweep.Stats{WorkflowsRedriven: 1, WebhooksRedriven: 1},
			webhookStatus: status.WebhookProcessing,
			setup: func(t *testing.T, h *harness) []string {
				row, ev := routedWebhook(t, h, true)
				webhookRow = row.EventID
				return []string{ev}
			}},
		{name: "processing webhook row whose projection was stored but not its event is routed again with the same ids",
			// The webhook function writes the projection and the events
			// side by side; here it stopped between them. The workflow
			// pass finds nothing to publish (RedriveFailed), the webhook
			// pass routes the row again.
			advance: stall, want: sweep.Stats{WorkflowsRedriven: 1, WebhooksRedriven: 1, RedriveFailed: 1},
			webhookStatus: status.WebhookProcessing,
			setup: func(t *testing.T, h *harness) []string {
				ctx := context.Background()
				row, _ := routedWebhook(t, h, false)
				webhookRow = row.EventID
				require.NoError(t, h.Store.SetWebhookStatus(ctx, row.EventID, status.WebhookProcessing, ""))
				wfID := events.DeriveID(events.WorkflowIDPrefix, row.EventID, "workflow", "run-0")
				created := events.DeriveID(events.EventIDPrefix, row.EventID, string(events.WorkflowCreated), "run-0")
				_, err := h.Store.CreateWorkflow(ctx, store.Workflow{WorkflowID: wfID, Name: "Invoice Sync", Steps: []string{"validate"},
					Priority: "high", EventID: created, WebhookEventID: row.EventID, CreatedAt: h.clock.Now()})
				require.NoError(t, err)
				return []string{created}
			}},
		{name: "processing webhook row whose workflow completed is settled",
			advance: stall, want: sweep.Stats{WebhooksRedriven: 1}, webhookStatus: status.WebhookCompleted,
			setup: func(t *testing.T, h *harness) []string {
				row, _ := routedWebhook(t, h, true)
				webhookRow = row.EventID
				wf, _, err := h.Store.WorkStartedBy(context.Background(), row)
				require.NoError(t, err)
				checkpoint(t, h, wf.WorkflowID, status.WorkflowCompleted, 3)
				return nil
			}},
		{name: "fresh pending workflow", advance: sweep.DefaultStallAfter - time.Minute,
			setup: func(t *testing.T, h *harness) []string {
				createdWorkflow(t, h)
				return nil
			}},
		{name: "fresh processing webhook row and workflow", advance: time.Minute, webhookStatus: status.WebhookProcessing,
			setup: func(t *testing.T, h *harness) []string {
				row, _ := routedWebhook(t, h, true)
				webhookRow = row.EventID
				return nil
			}},
		{name: "fresh pending task", advance: time.Minute,
			setup: func(t *testing.T, h *harness) []string {
				createdTask(t, h)
				return nil
			}},
		{name: "completed workflow", advance: stall,
			setup: func(t *testing.T, h *harness) []string {
				wf, _ := createdWorkflow(t, h)
				checkpoint(t, h, wf, status.WorkflowCompleted, 3)
				return nil
			}},
		{name: "failed workflow", advance: stall,
			setup: func(t *testing.T, h *harness) []string {
				wf, _ := createdWorkflow(t, h)
				checkpoint(t, h, wf, status.WorkflowFailed, 1)
				return nil
			}},
		{name: "completed task", advance: stall,
			setup: func(t *testing.T, h *harness) []string {
				id, _ := createdTask(t, h)
				task, err := h.Store.GetTask(context.Background(), id)
				require.NoError(t, err)
				task.Status = status.TaskCompleted
				done := h.clock.Now()
				task.CompletedAt = &done
				_, err = h.Store.SaveTaskOutcomes(context.Background(), store.TaskOutcome{Task: task})
				require.NoError(t, err)
				return nil
			}},
		{name: "completed webhook row", advance: stall, webhookStatus: status.WebhookCompleted,
			setup: func(t *testing.T, h *harness) []string {
				row, _ := routedWebhook(t, h, true)
				webhookRow = row.EventID
				require.NoError(t, h.Store.SetWebhookStatus(context.Background(), row.EventID, status.WebhookCompleted, ""))
				wf, _, err := h.Store.WorkStartedBy(context.Background(), row)
				require.NoError(t, err)
				checkpoint(t, h, wf.WorkflowID, status.WorkflowCompleted, 3)
				return nil
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			ctx := context.Background()
			webhookRow = ""
			wantIDs := tc.setup(t, h)
			before := len(h.Envelopes(t, events.TopicWorkflows)) + len(h.Envelopes(t, events.TopicTasks))

			h.clock.Advance(tc.advance)
			st := h.run(t)
			assert.Equal(t, tc.want, st)

			published := append(h.Envelopes(t, events.TopicWorkflows), h.Envelopes(t, events.TopicTasks)...)
			var again []string
			for _, env := range published[before:] {
				if env.EventType == events.WorkflowCreated || env.EventType == events.TaskCreated || env.EventType == events.TaskFailed {
					again = append(again, env.EventID)
				}
			}
			for _, env := range published[before:] {
				if want := traceOf(t, h, env.AggregateID()); want != "" {
					assert.Equal(t, want, env.Metadata.TraceID, "%s re-driven in its aggregate's trace", env.EventType)
				}
			}
			if len(wantIDs) == 1 && wantIDs[0] == "*" {
				assert.Len(t, again, 1, "one workflow.created published")
			} else {
				assert.ElementsMatch(t, wantIDs, again, "the stored events that drive the item, each published once")
			}
			if tc.webhookStatus != "" {
				row, err := h.Store.GetWebhookEvent(ctx, webhookRow)
				require.NoError(t, err)
				assert.Equal(t, tc.webhookStatus, row.Status)
			}

			st = h.run(t)
			assert.Zero(t, st.WorkflowsRedriven+st.TasksRedriven+st.WebhooksRedriven,
				"a re-driven item waits another stall period")
		})
	}
}

// A processor's batch stored under a publish ledger and cut short by a
// crash before its publish is published by the sweeper once the ledger
// is older than PublishAfter, every event once, and the ledger is gone.
func TestSweeperPublishesABatchWhoseLedgerACrashLeftOpen(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	envs := make([]events.Envelope, 2*emit.DefaultLedgerMin)
	for i := range envs {
		env, err := events.NewEvent(events.WorkflowCreatedPayload{WorkflowID: events.NewWorkflowID(), Name: "n",
			Steps: []string{"validate"}, Priority: events.PriorityLow, CreatedAt: events.Now()}, nil)
		require.NoError(t, err)
		envs[i] = env
	}
	_, err := h.Emitter.Store(ctx, envs...) // the publish never happened
	require.NoError(t, err)

	st := h.run(t)
	assert.Zero(t, st.LedgersReopened, "younger than 30 s: the processor may still publish it")
	assert.Zero(t, st.Published)

	h.clock.Advance(31 * time.Second)
	st = h.run(t)
	assert.Equal(t, 1, st.LedgersReopened)
	assert.Equal(t, len(envs), st.Published)
	published := h.Envelopes(t, events.TopicWorkflows)
	ids := make([]string, len(published))
	for i, p := range published {
		ids[i] = p.EventID
	}
	want := make([]string, len(envs))
	for i, e := range envs {
		want[i] = e.EventID
	}
	assert.ElementsMatch(t, want, ids)

	st = h.run(t)
	assert.Zero(t, st.LedgersReopened)
	assert.Zero(t, st.Published, "published once")
}
