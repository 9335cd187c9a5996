package storetest

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/status"
	"github.com/streamops/streamops/internal/store"
)

// retentionRule is one collection's retention (store.Retention): the TTL
// index that applies it, and documents as the store's own writes leave
// them, some that ended (they expire) and some that have not (kept).
type retentionRule struct {
	collection, index string
	// write stores the documents and returns their getters.
	write func(t *testing.T, s *store.Store) (ended, open []getter)
}

// getter loads one document; store.ErrNotFound once it is gone.
type getter struct {
	name string
	get  func() error
}

// retentionRules is every collection's rule but events' and
// webhook_events' (testTTL) and partner_events' (expire_at, set when
// stored).
var retentionRules = []retentionRule{
	{store.CollOutbox, "idx_completed_ttl", func(t *testing.T, s *store.Store) (ended, open []getter) {
		entries := outboxEntries(3, time.Now(), 0)
		enqueue(t, s, entries)
		byID := claimAll(t, s, time.Now(), 3)
		_, err := s.SettleOutbox(ctx(t),
			store.Settlement{Entry: byID[entries[0].OutboxID], Outcome: status.OutcomeDelivered},
			store.Settlement{Entry: byID[entries[1].OutboxID], Outcome: status.OutcomeRetry, NextAttemptAt: time.Now().Add(time.Hour), Error: "HTTP 503"},
			store.Settlement{Entry: byID[entries[2].OutboxID], Outcome: status.OutcomeDeadLettered, Error: "HTTP 410"})
		require.NoError(t, err)
		get := func(i int, name string) getter {
			return getter{name, func() error { _, err := s.GetOutboxEntry(ctx(t), entries[i].OutboxID); return err }}
		}
		return []getter{get(0, "delivered")}, []getter{get(1, "retrying"), get(2, "dead-lettered, waiting for a requeue")}
	}},
	{store.CollWorkflows, "idx_completed_ttl", func(t *testing.T, s *store.Store) (ended, open []getter) {
		now := time.Now()
		cp := func(st string, ended bool) store.WorkflowCheckpoint {
			wf := store.Workflow{WorkflowID: "wf-" + uuid.NewString(), Name: "retention", Steps: []string{"validate", "transform"},
				Status: st, CreatedAt: now}
			if ended {
				wf.CompletedAt = &now
			}
			return store.WorkflowCheckpoint{Workflow: wf}
		}
		completed, failed, processing := cp(status.WorkflowCompleted, true), cp(status.WorkflowFailed, true), cp(status.WorkflowProcessing, false)
		failed.ResumeRecords = []store.JSONDoc{store.JSONDoc(`{"a":1}`)}
		_, err := s.SaveWorkflowCheckpoints(ctx(t), completed, failed, processing)
		require.NoError(t, err)
		pending, err := s.CreateWorkflow(ctx(t), store.Workflow{WorkflowID: "wf-" + uuid.NewString(), Name: "retention", Steps: []string{"validate"}})
		require.NoError(t, err)
		get := func(id, name string) getter {
			return getter{name, func() error { _, err := s.GetWorkflow(ctx(t), id); return err }}
		}
		return []getter{get(completed.WorkflowID, "completed"), get(failed.WorkflowID, "failed, with its failed step's records")},
			[]getter{get(processing.WorkflowID, "processing"), get(pending.WorkflowID, "pending")}
	}},
	{store.CollTasks, "idx_ended_ttl", func(t *testing.T, s *store.Store) (ended, open []getter) {
		now := time.Now()
		outcome := func(st string) store.TaskOutcome {
			task := store.Task{TaskID: "task-" + uuid.NewString(), Type: "email_notification", Data: store.JSONDoc(`{}`), Status: st, MaxRetries: 3, CreatedAt: now}
			switch st {
			case status.TaskCompleted:
				task.CompletedAt = &now
			case status.TaskFailed:
				next := now.Add(time.Hour)
				task.NextRetryAt, task.RetryCount = &next, 1
			}
			return store.TaskOutcome{Task: task}
		}
		completed, dead, failed := outcome(status.TaskCompleted), outcome(status.TaskDeadLetter), outcome(status.TaskFailed)
		_, err := s.SaveTaskOutcomes(ctx(t), completed, dead, failed)
		require.NoError(t, err)
		pending, err := s.CreateTask(ctx(t), store.Task{TaskID: "task-" + uuid.NewString(), Type: "email_notification", Data: store.JSONDoc(`{}`)})
		require.NoError(t, err)
		get := func(id, name string) getter {
			return getter{name, func() error { _, err := s.GetTask(ctx(t), id); return err }}
		}
		return []getter{get(completed.TaskID, "completed"), get(dead.TaskID, "dead-lettered")},
			[]getter{get(failed.TaskID, "failed, its retry due"), get(pending.TaskID, "pending")}
	}},
	{store.CollWorkflowRecords, "idx_stored_ttl", func(t *testing.T, s *store.Store) (ended, open []getter) {
		wf := "wf-" + uuid.NewString()
		_, err := s.InsertWorkflowRecords(ctx(t), store.WorkflowRecord{WorkflowID: wf, Dataset: "retention", Record: store.JSONDoc(`{"a":1}`)})
		require.NoError(t, err)
		return []getter{{"stored", func() error {
			recs, err := s.WorkflowRecords(ctx(t), wf)
			if err == nil && len(recs) == 0 {
				err = store.ErrNotFound
			}
			return err
		}}}, nil
	}},
	{store.CollDeadLetters, "idx_resolved_ttl", func(t *testing.T, s *store.Store) (ended, open []getter) {
		dl := func(offset int64) store.DeadLetterEntry {
			return store.DeadLetterEntry{Processor: "workflow-processor", Topic: events.TopicWorkflows, Partition: 0, Offset: offset,
				Value: []byte("not json"), RecordTimestamp: time.Now(), Reason: "undecodable", Error: "invalid character"}
		}
		base := time.Now().UnixNano()
		_, err := s.InsertDeadLetters(ctx(t), dl(base), dl(base+1), dl(base+2))
		require.NoError(t, err)
		ids := []string{store.DeadLetterID(events.TopicWorkflows, 0, base), store.DeadLetterID(events.TopicWorkflows, 0, base+1),
			store.DeadLetterID(events.TopicWorkflows, 0, base+2)}
		require.NoError(t, s.ResolveDeadLetter(ctx(t), ids[0], status.DeadLetterDiscarded))
		_, err = s.RecordRequeues(ctx(t), ids[1])
		require.NoError(t, err)
		get := func(id, name string) getter {
			return getter{name, func() error { _, err := s.GetDeadLetter(ctx(t), id); return err }}
		}
		return []getter{get(ids[0], "discarded"), get(ids[1], "replayed")}, []getter{get(ids[2], "open")}
	}},
	{store.CollReplaySessions, "idx_completed_ttl", func(t *testing.T, s *store.Store) (ended, open []getter) {
		var ids []string
		for range 2 {
			rs, err := s.CreateReplaySession(ctx(t), store.ReplaySession{ID: "replay-" + uuid.NewString(), SnapshotAt: time.Now()})
			require.NoError(t, err)
			ids = append(ids, rs.ID)
		}
		_, err := s.CancelReplaySession(ctx(t), ids[0], store.ReplayError{Timestamp: time.Now(), Error: "cancelled", ErrorType: "cancelled"})
		require.NoError(t, err)
		get := func(id, name string) getter {
			return getter{name, func() error { _, err := s.GetReplaySession(ctx(t), id); return err }}
		}
		return []getter{get(ids[0], "cancelled")}, []getter{get(ids[1], "running")}
	}},
	{store.CollEventsArchive, "idx_archived_ttl", func(t *testing.T, s *store.Store) (ended, open []getter) {
		env := workflowCreated(time.Now())
		require.NoError(t, s.InsertEvent(ctx(t), env))
		require.NoError(t, s.MarkPublished(ctx(t), env.EventID))
		time.Sleep(5 * time.Millisecond) // past EventTTL (1 ms): due
		_, err := s.ArchiveDue(ctx(t), 1000)
		require.NoError(t, err)
		_, err = s.GetArchivedEvent(ctx(t), env.EventID)
		require.NoError(t, err, "archived")
		return []getter{{"archived", func() error { _, err := s.GetArchivedEvent(ctx(t), env.EventID); return err }}}, nil
	}},
}

// testRetention: each collection's retention is a TTL index on the
// moment its documents end, with the configured period; where the TTL
// monitor sweeps fast enough to watch, a document that ended is deleted
// once the period has passed and one that has not ended is kept.
func testRetention(t *testing.T, open Opener) {
	const period = time.Second
	s := open(t, store.Config{EventTTL: time.Millisecond, ExpireInterval: 20 * time.Millisecond, Retention: store.Retention{
		Outbox: period, Workflows: period, Tasks: period, DeadLetters: period, ReplaySessions: period, Archive: period}})
	type written struct{ ended, open []getter }
	docs := make([]written, len(retentionRules))
	for i, rule := range retentionRules {
		docs[i].ended, docs[i].open = rule.write(t, s)
	}
	for i, rule := range retentionRules {
		t.Run(rule.collection, func(t *testing.T) {
			list, err := s.ListIndexes(ctx(t), rule.collection)
			require.NoError(t, err)
			var ttl *int64
			for _, ix := range list {
				if ix.Name == rule.index {
					ttl = ix.ExpireAfterSeconds
				}
			}
			require.NotNil(t, ttl, "%s.%s is a TTL index", rule.collection, rule.index)
			assert.EqualValues(t, period/time.Second, *ttl, "expireAfterSeconds: the configured period")
			if !Has(FastTTL) {
				return
			}
			for _, g := range docs[i].ended {
				assert.Eventually(t, func() bool { return errors.Is(g.get(), store.ErrNotFound) }, 30*time.Second, 20*time.Millisecond,
					"%s: a %s document is deleted once its retention has passed", rule.collection, g.name)
			}
			for _, g := range docs[i].open {
				assert.NoError(t, g.get(), "%s: a %s document has not ended and is kept", rule.collection, g.name)
			}
		})
	}
}

// testRerunsAreCapped: a workflow rerun more than store.MaxWorkflowReruns
// times keeps the newest reruns and counts the rest.
func testRerunsAreCapped(t *testing.T, open Opener) {
	clock := NewClock()
	s := open(t, store.Config{Now: clock.Now})
	id := "wf-" + uuid.NewString()
	_, err := s.CreateWorkflow(ctx(t), store.Workflow{WorkflowID: id, Name: "reruns", Steps: []string{"validate"}})
	require.NoError(t, err)
	const over = 3
	for attempt := 2; attempt <= store.MaxWorkflowReruns+over+1; attempt++ {
		clock.Advance(time.Second)
		at := clock.Now()
		_, err := s.SaveWorkflowCheckpoints(ctx(t), store.WorkflowCheckpoint{Workflow: store.Workflow{
			WorkflowID: id, Status: status.WorkflowFailed, CompletedAt: &at}})
		require.NoError(t, err)
		loaded, err := s.GetWorkflow(ctx(t), id)
		require.NoError(t, err)
		require.Equal(t, status.WorkflowFailed, loaded.Status)
		require.NoError(t, s.RerunWorkflow(ctx(t), loaded, store.WorkflowRerun{Attempt: attempt, FromStep: "validate",
			PreviousStatus: status.WorkflowFailed, EventID: fmt.Sprintf("evt-%s-%d", id, attempt), RequestedAt: at}, nil, false))
	}
	got, err := s.GetWorkflow(ctx(t), id)
	require.NoError(t, err)
	require.Len(t, got.Reruns, store.MaxWorkflowReruns, "the newest are kept")
	assert.Equal(t, 2+over, got.Reruns[0].Attempt, "the oldest kept")
	assert.Equal(t, store.MaxWorkflowReruns+over+1, got.Reruns[len(got.Reruns)-1].Attempt, "the newest last")
	assert.Equal(t, over, got.RerunsDropped, "the dropped ones are counted")
	assert.Nil(t, got.CompletedAt, "a rerun clears the end, so its retention waits for the new run's")
}

// testWebhookAttemptsAreCapped: a webhook row given more than
// store.MaxWebhookAttempts new attempts keeps the newest.
func testWebhookAttemptsAreCapped(t *testing.T, open Opener) {
	clock := NewClock()
	s := open(t, store.Config{Now: clock.Now})
	ev, err := s.InsertWebhookEvent(ctx(t), store.WebhookEvent{Provider: "acme", ProviderEventID: "cap-" + uuid.NewString(), EventType: "OR_PLC",
		Status: status.WebhookProcessing, RunID: "wf-1", Payload: store.JSONDoc(`{}`)})
	require.NoError(t, err)
	const over = 3
	last := store.MaxWebhookAttempts + over + 1
	for attempt := 2; attempt <= last; attempt++ {
		run := fmt.Sprintf("wf-%d", attempt-1)
		if attempt > 2 {
			require.NoError(t, s.MarkWebhookRouted(ctx(t), ev.EventID, run))
		}
		_, err := s.SettleWebhookEvents(ctx(t), store.WebhookOutcome{EventID: ev.EventID, RunID: run, Status: status.WebhookFailed, Error: "boom"})
		require.NoError(t, err)
		loaded, err := s.GetWebhookEvent(ctx(t), ev.EventID)
		require.NoError(t, err)
		clock.Advance(time.Second)
		require.NoError(t, s.StartWebhookAttempt(ctx(t), loaded, store.WebhookAttempt{Attempt: attempt, PreviousStatus: status.WebhookFailed,
			PreviousRunID: run, Reason: "again", RequestedBy: "op", RequestedAt: clock.Now()}))
	}
	got, err := s.GetWebhookEvent(ctx(t), ev.EventID)
	require.NoError(t, err)
	require.Len(t, got.Attempts, store.MaxWebhookAttempts, "the newest are kept")
	assert.Equal(t, 2+over, got.Attempts[0].Attempt, "the oldest kept")
	assert.Equal(t, last, got.Attempts[len(got.Attempts)-1].Attempt, "the newest last")
}
