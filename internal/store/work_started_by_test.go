package store_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/store/storetest"
)

// TestWorkStartedByReadsTheRunTheRowNames: the retry-sweeper's look-up
// of what a stalled webhook event started reads the run the row names
// (its workflow, else its task), and only a row without one falls back to
// the newest work carrying its webhookEventId.
func TestWorkStartedByReadsTheRunTheRowNames(t *testing.T) {
	ctx := context.Background()
	s := storetest.Open(t, store.Config{})
	old := time.Now().Add(-time.Hour)
	for _, wf := range []store.Workflow{
		{WorkflowID: "wf-first", WebhookEventID: "whe-1", CreatedAt: old},
		{WorkflowID: "wf-second", WebhookEventID: "whe-1"},
	} {
		_, err := s.CreateWorkflow(ctx, wf)
		require.NoError(t, err)
	}
	_, err := s.CreateTask(ctx, store.Task{TaskID: "task-1", Type: "report_generation", WebhookEventID: "whe-2"})
	require.NoError(t, err)

	cases := []struct {
		name          string
		row           store.WebhookEvent
		workflow      string
		task          string
		storedNeither bool
	}{
		{name: "the run is a workflow", row: store.WebhookEvent{EventID: "whe-1", RunID: "wf-second"}, workflow: "wf-second"},
		{name: "the run the row names, not the newest", row: store.WebhookEvent{EventID: "whe-1", RunID: "wf-first"}, workflow: "wf-first"},
		{name: "the run is a task", row: store.WebhookEvent{EventID: "whe-2", RunID: "task-1"}, task: "task-1"},
		{name: "no run: the newest work of the webhook event", row: store.WebhookEvent{EventID: "whe-1"}, workflow: "wf-second"},
		{name: "no run: a task of the webhook event", row: store.WebhookEvent{EventID: "whe-2"}, task: "task-1"},
		{name: "a run not stored", row: store.WebhookEvent{EventID: "whe-1", RunID: "wf-lost"}, storedNeither: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			wf, task, err := s.WorkStartedBy(ctx, tc.row)
			require.NoError(t, err)
			if tc.workflow != "" {
				require.NotNil(t, wf)
				assert.Equal(t, tc.workflow, wf.WorkflowID)
			} else {
				assert.Nil(t, wf)
			}
			if tc.task != "" {
				require.NotNil(t, task)
				assert.Equal(t, tc.task, task.TaskID)
			} else {
				assert.Nil(t, task)
			}
			assert.Equal(t, tc.storedNeither, wf == nil && task == nil)
		})
	}
}

// TestWorkStartedByIsServedByAnIndex: on a store of thousands of
// workflows and tasks, the look-up for a routed row (the rows the
// retry-sweeper finds stalled are routed) is an index scan in both
// collections, where the look-up by webhookEventId, which no index
// serves, reads each whole.
func TestWorkStartedByIsServedByAnIndex(t *testing.T) {
	storetest.Require(t, storetest.Explain)
	ctx := context.Background()
	s := storetest.Open(t, store.Config{})
	const n = 2000
	docs := make([]any, n)
	for _, coll := range []string{store.CollWorkflows, store.CollTasks} {
		for i := range docs {
			id := fmt.Sprint(coll, "-", i)
			docs[i] = map[string]any{"_id": id, "webhookEventId": fmt.Sprint("whe-", i), "status": "completed", "createdAt": time.Now()}
		}
		_, err := s.Collection(coll).InsertMany(ctx, docs)
		require.NoError(t, err)
	}
	routed := store.WebhookEvent{EventID: "whe-7", RunID: store.CollWorkflows + "-7"}
	legacy := store.WebhookEvent{EventID: "whe-7"}
	for _, coll := range []string{store.CollWorkflows, store.CollTasks} {
		f, sort := store.WorkStartedByQuery(routed)
		plan := storetest.QueryPlan(t, s.Collection(coll), f, sort)
		assert.True(t, plan.Indexed(), "%s, a routed row: %v", coll, plan.Stages)
		f, sort = store.WorkStartedByQuery(legacy)
		plan = storetest.QueryPlan(t, s.Collection(coll), f, sort)
		assert.True(t, plan.FullScan(), "%s, a row without its run: %v %v", coll, plan.Stages, plan.Indexes)
	}
}

// BenchmarkWorkStartedBy is the retry-sweeper's look-up of a stalled
// webhook row's work with 1,000 and 10,000 workflows and tasks stored, on
// the engine under test: "run" for a routed row (by _id), "webhook" for
// a row without its run (by webhookEventId, the query every stalled row
// made before). Each look-up finds nothing in workflows and reads tasks
// too, as for a row that started a task.
func BenchmarkWorkStartedBy(b *testing.B) {
	ctx := context.Background()
	for _, size := range []int{1000, 10000} {
		s := storetest.Open(b, store.Config{OperationTimeout: time.Hour})
		docs := make([]any, size)
		for _, coll := range []string{store.CollWorkflows, store.CollTasks} {
			for i := range docs {
				docs[i] = map[string]any{"_id": fmt.Sprint(coll, "-", i), "webhookEventId": fmt.Sprint("whe-", i),
					"status": "completed", "createdAt": time.Now()}
			}
			_, err := s.Collection(coll).InsertMany(ctx, docs)
			require.NoError(b, err)
		}
		for name, row := range map[string]store.WebhookEvent{
			"run":     {EventID: "whe-missing", RunID: "task-missing"},
			"webhook": {EventID: "whe-missing"},
		} {
			b.Run(fmt.Sprintf("docs=%d/by=%s", size, name), func(b *testing.B) {
				for b.Loop() {
					if _, _, err := s.WorkStartedBy(ctx, row); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
