package traceview_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/status"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/store/storetest"
	"github.com/streamops/streamops/internal/traceview"
	"github.com/streamops/streamops/internal/traceview/traceviewtest"
)

// TestTraceViewDrawsTheWholeTrace stores a trace the way the functions
// do (webhook row, events, workflow, task, deliveries, dead letter, and
// another trace beside it) and checks the tree GetTrace and Build draw:
// every stored thing of the trace once, under its parent, parents before
// children, nothing of the other trace, offsets from the trace's start.
func TestTraceViewDrawsTheWholeTrace(t *testing.T) {
	clock := storetest.NewClock()
	s := storetest.Open(t, store.Config{Now: clock.Now})
	f := traceviewtest.Store(t, s, clock)

	before := s.Commands()
	tr, err := s.GetTrace(context.Background(), traceviewtest.TraceID)
	require.NoError(t, err)
	commands := s.Commands() - before
	assert.LessOrEqual(t, commands, int64(6), "one command per collection")
	t.Logf("GetTrace: %d commands for %d events", commands, len(tr.Events))
	v := traceview.Build(tr)

	assert.Equal(t, traceviewtest.TraceID, v.TraceID)
	assert.False(t, v.Truncated)
	assert.Equal(t, traceviewtest.Start, v.StartedAt)
	// The last thing that happened: the third delivery attempt's answer.
	assert.Equal(t, traceviewtest.Start.Add(162*time.Millisecond), v.EndedAt)
	assert.Equal(t, int64(162), v.DurationMs)

	byID := map[string]traceview.Node{}
	pos := map[string]int{}
	for i, n := range v.Nodes {
		_, dup := byID[n.ID]
		assert.False(t, dup, "node %s twice", n.ID)
		byID[n.ID], pos[n.ID] = n, i
		assert.GreaterOrEqual(t, n.OffsetMs, int64(0), n.ID)
		assert.Equal(t, n.StartedAt.Sub(v.StartedAt).Milliseconds(), n.OffsetMs, n.ID)
		if n.ParentID != "" {
			p, ok := pos[n.ParentID]
			require.True(t, ok, "%s: parent %s not before it", n.ID, n.ParentID)
			assert.Less(t, p, i)
		}
	}
	for _, id := range f.Other {
		assert.NotContains(t, byID, id, "a node of another trace")
	}

	wf, task, webhook := "workflow:"+f.WorkflowID, "task:"+f.TaskID, "webhook:"+f.WebhookID
	step := func(i int) string { return fmt.Sprintf("step:%s:%d", f.WorkflowID, i) }
	ev := func(name string) string { return "event:" + f.Events[name] }
	attempt := func(n int) string { return fmt.Sprintf("attempt:%s:%d", f.OutboxID, n) }
	for _, tt := range []struct {
		id, parent, kind, name, status string
		offset                         int64
		duration                       int64 // -1: none
	}{
		{webhook, "", traceview.KindWebhook, "stripe invoice.finalized", status.WebhookReceived, 0, -1},
		{ev("received"), webhook, traceview.KindEvent, "webhook.received", "", 1, -1},
		{wf, webhook, traceview.KindWorkflow, "Invoice Sync", status.WorkflowCompleted, 3, 47},
		{ev("created"), wf, traceview.KindEvent, "workflow.created", "", 3, -1},
		{step(0), wf, traceview.KindStep, "validate", "completed", 5, 15},
		{ev("step0"), step(0), traceview.KindEvent, "workflow.step.completed", "", 20, -1},
		{step(1), wf, traceview.KindStep, "deliver", "completed", 22, 18},
		{ev("step1"), step(1), traceview.KindEvent, "workflow.step.completed", "", 40, -1},
		{"delivery:" + f.OutboxID, step(1), traceview.KindDelivery, "acme", status.OutboxPending, 38, -1},
		{attempt(1), "delivery:" + f.OutboxID, traceview.KindAttempt, "HTTP 500", "failed", 41, 40},
		{attempt(2), "delivery:" + f.OutboxID, traceview.KindAttempt, "no answer", "failed", 90, 5},
		{attempt(3), "delivery:" + f.OutboxID, traceview.KindAttempt, "HTTP 200", "completed", 150, 12},
		{"delivery:" + f.LooseOutboxID, wf, traceview.KindDelivery, "beta", status.OutboxPending, 38, -1},
		{ev("completed"), wf, traceview.KindEvent, "workflow.completed", "", 50, -1},
		{ev("rerun"), wf, traceview.KindEvent, "workflow.created", "", 60, -1},
		{ev("replay"), wf, traceview.KindEvent, "workflow.created (replay)", "", 70, -1},
		{task, webhook, traceview.KindTask, "send_email", status.TaskCompleted, 5, 30},
		{ev("taskCreated"), task, traceview.KindEvent, "task.created", "", 5, -1},
		{ev("taskFailed"), task, traceview.KindEvent, "task.failed", "", 10, -1},
		{"deadletter:" + f.DeadLetterID, ev("taskFailed"), traceview.KindDeadLetter, "task.failed processing-failed", status.DeadLetterOpen, 12, -1},
		{ev("taskRetry"), task, traceview.KindEvent, "task.processing", "", 30, -1},
		{ev("taskCompleted"), task, traceview.KindEvent, "task.completed", "", 35, -1},
		{ev("orphan"), "", traceview.KindEvent, "workflow.processing", "", 65, -1},
		{ev("foreign"), "", traceview.KindEvent, "workflow.processing", "", 66, -1},
	} {
		t.Run(tt.id, func(t *testing.T) {
			n, ok := byID[tt.id]
			require.True(t, ok, "missing")
			assert.Equal(t, tt.parent, n.ParentID)
			assert.Equal(t, tt.kind, n.Kind)
			assert.Equal(t, tt.name, n.Name)
			assert.Equal(t, tt.status, n.Status)
			assert.Equal(t, tt.offset, n.OffsetMs)
			if tt.duration < 0 {
				assert.Nil(t, n.DurationMs)
			} else if assert.NotNil(t, n.DurationMs) {
				assert.Equal(t, tt.duration, *n.DurationMs)
			}
		})
	}
	// The stored things and nothing else: the table names every node.
	assert.Len(t, v.Nodes, 24)
	assert.Len(t, f.Events, 13)

	// Siblings by start: under the workflow, its first step before the
	// event at 20 ms.
	assert.Less(t, pos[step(0)], pos[ev("step0")])
	assert.Less(t, pos[wf], pos[task], "the workflow (3 ms) before the task (5 ms)")

	detail := func(id string) map[string]any {
		raw, err := json.Marshal(byID[id].Detail)
		require.NoError(t, err)
		var m map[string]any
		require.NoError(t, json.Unmarshal(raw, &m))
		return m
	}
	assert.Equal(t, f.Events["created"], detail(ev("replay"))["replayOf"])
	assert.EqualValues(t, 2, detail(ev("rerun"))["attempt"])
	assert.EqualValues(t, 1, detail(ev("taskRetry"))["retryCount"])
	assert.EqualValues(t, 500, detail(attempt(1))["statusCode"])
	assert.Equal(t, "00f067aa0ba902b7", detail(attempt(1))["spanId"])
	assert.Equal(t, "connection refused", detail(attempt(2))["error"])
	assert.Equal(t, f.OutboxID, detail(step(1))["outboxId"])
	assert.EqualValues(t, 0, detail(step(0))["stepIndex"], "index 0 is shown")
	assert.EqualValues(t, 0, detail(ev("step0"))["stepIndex"])
	assert.Equal(t, "evt_trace_1", detail(webhook)["providerEventId"])
	assert.Equal(t, f.WebhookID, byID[webhook].Ref)
	assert.Equal(t, f.OutboxID, byID[attempt(2)].Ref)

	depth := traceview.Depth(v.Nodes)
	assert.Equal(t, 0, depth[pos[webhook]])
	assert.Equal(t, 4, depth[pos[attempt(3)]], "webhook → workflow → step → delivery → attempt")
}

// TestGetTraceOfNothingIsNotFound: a trace nothing is stored under, also
// beside one that is.
func TestGetTraceOfNothingIsNotFound(t *testing.T) {
	clock := storetest.NewClock()
	s := storetest.Open(t, store.Config{Now: clock.Now})
	traceviewtest.Store(t, s, clock)
	_, err := s.GetTrace(context.Background(), "ffffffffffffffffffffffffffffffff")
	assert.ErrorIs(t, err, store.ErrNotFound)
}

// TestGetTraceReadsAtMostMaxTraceEvents: a trace of more events than
// store.MaxTraceEvents shows the first of them, in order, and says so;
// one of exactly that many is whole.
func TestGetTraceReadsAtMostMaxTraceEvents(t *testing.T) {
	for _, tt := range []struct {
		events    int
		truncated bool
	}{
		{store.MaxTraceEvents, false},
		{store.MaxTraceEvents + 1, true},
	} {
		t.Run(fmt.Sprint(tt.events), func(t *testing.T) {
			s := storetest.Open(t, store.Config{})
			start := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
			envs := make([]events.Envelope, tt.events)
			for i := range envs {
				envs[i] = events.Envelope{EventType: events.TaskProcessing, EventID: fmt.Sprintf("evt-%05d", i),
					// Many share a millisecond: seq orders them.
					Timestamp: events.At(start.Add(time.Duration(i/10) * time.Millisecond)), SchemaVersion: events.SchemaVersion,
					Payload:  json.RawMessage(`{"taskId":"task-1","retryCount":0}`),
					Metadata: &events.Metadata{Source: "test", TraceID: traceviewtest.TraceID}}
			}
			_, err := s.InsertEvents(context.Background(), envs)
			require.NoError(t, err)
			before := s.Commands()
			tr, err := s.GetTrace(context.Background(), traceviewtest.TraceID)
			require.NoError(t, err)
			assert.LessOrEqual(t, s.Commands()-before, int64(6), "one command per collection whatever the events")
			assert.Equal(t, tt.truncated, tr.Truncated)
			require.Len(t, tr.Events, store.MaxTraceEvents)
			for i, e := range tr.Events {
				require.Equal(t, fmt.Sprintf("evt-%05d", i), e.EventID)
			}
			v := traceview.Build(tr)
			assert.Equal(t, tt.truncated, v.Truncated)
			assert.Len(t, v.Nodes, store.MaxTraceEvents)
		})
	}
}
