package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.mongodb.org/mongo-driver/bson"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/store/storetest"
)

// TestBackfillRetentionBringsEarlierDocumentsUnderTheRules: documents as
// an earlier version stored them (events with ttl_expires_at set at
// insert, webhook rows without expire_at, tasks that ended without
// endedAt) are brought under the rules, and nothing else changes.
func TestBackfillRetentionBringsEarlierDocumentsUnderTheRules(t *testing.T) {
	clock := storetest.NewClock()
	ctx := context.Background()
	s := storetest.Open(t, store.Config{Now: clock.Now, EventTTL: 90 * 24 * time.Hour, WebhookEventTTL: 30 * 24 * time.Hour})
	now := clock.Now()
	later, earlier := now.Add(90*24*time.Hour), now.Add(-time.Hour)
	_, err := s.Collection(store.CollEvents).InsertMany(ctx, []any{
		bson.M{"_id": "evt-legacy", "event_id": "evt-legacy", "stored_at": now, "ttl_expires_at": later},
		bson.M{"_id": "evt-archived", "event_id": "evt-archived", "stored_at": now, "ttl_expires_at": earlier, "archived_at": earlier},
	})
	require.NoError(t, err)
	_, err = s.Collection(store.CollWebhookEvents).InsertMany(ctx, []any{
		bson.M{"_id": "wh-old", "event_id": "wh-old", "provider": "stripe", "provider_event_id": "old", "received_at": now.Add(-31 * 24 * time.Hour)},
		bson.M{"_id": "wh-young", "event_id": "wh-young", "provider": "stripe", "provider_event_id": "young", "received_at": now.Add(-29 * 24 * time.Hour)},
	})
	require.NoError(t, err)
	_, err = s.Collection(store.CollTasks).InsertMany(ctx, []any{
		bson.M{"_id": "task-done", "taskId": "task-done", "status": "completed", "completedAt": earlier},
		bson.M{"_id": "task-dead", "taskId": "task-dead", "status": "dead_letter"},
		bson.M{"_id": "task-retrying", "taskId": "task-retrying", "status": "failed"},
	})
	require.NoError(t, err)

	got, err := s.BackfillRetention(ctx)
	require.NoError(t, err)
	assert.Equal(t, store.Backfilled{EventsHeld: 1, WebhookEventsExpired: 1, TasksEnded: 2}, got)
	for id, ended := range map[string]bool{"task-done": true, "task-dead": true, "task-retrying": false} {
		task, err := s.GetTask(ctx, id)
		require.NoError(t, err)
		if ended {
			require.NotNil(t, task.EndedAt, "%s ended: its retention counts from now", id)
			assert.Equal(t, now, *task.EndedAt)
		} else {
			assert.Nil(t, task.EndedAt, "%s has not ended: never expires", id)
		}
	}

	legacy, err := s.GetEvent(ctx, "evt-legacy")
	require.NoError(t, err)
	assert.Nil(t, legacy.TTLExpiresAt, "unarchived: the TTL index must not delete it")
	archived, err := s.GetEvent(ctx, "evt-archived")
	require.NoError(t, err)
	require.NotNil(t, archived.TTLExpiresAt, "archived events keep theirs")
	assert.Equal(t, earlier, *archived.TTLExpiresAt)
	old, err := s.GetWebhookEvent(ctx, "wh-old")
	require.NoError(t, err)
	assert.Equal(t, now, old.ExpireAt, "past its retention: expires now")
	young, err := s.GetWebhookEvent(ctx, "wh-young")
	require.NoError(t, err)
	assert.True(t, young.ExpireAt.IsZero(), "younger: left until a later run finds it old enough")

	again, err := s.BackfillRetention(ctx)
	require.NoError(t, err)
	assert.Zero(t, again, "a second run changes nothing")
}

// TestARetentionChangeAppliesAtOpen: Open rebuilds a retention TTL index
// whose period changed, so the new period applies to what ended before;
// Permanent drops it, and a later period builds it again. Documents are
// kept through each rebuild.
func TestARetentionChangeAppliesAtOpen(t *testing.T) {
	ctx := context.Background()
	base := storetest.Configure(t, store.Config{DataDir: t.TempDir()})
	ttlOf := func(s *store.Store, coll, name string) *int64 {
		t.Helper()
		list, err := s.ListIndexes(ctx, coll)
		require.NoError(t, err)
		for _, ix := range list {
			if ix.Name == name {
				require.NotNil(t, ix.ExpireAfterSeconds, "%s.%s is a TTL index", coll, name)
				return ix.ExpireAfterSeconds
			}
		}
		return nil
	}
	for _, step := range []struct {
		name      string
		retention store.Retention
		// want is the archive's and the workflows' expireAfterSeconds;
		// nil: no index.
		archive, workflows *int64
	}{
		{"defaults", store.Retention{}, ptr(int64(365 * 24 * 3600)), ptr(int64(90 * 24 * 3600))},
		{"changed", store.Retention{Archive: 2 * time.Hour, Workflows: time.Hour}, ptr(int64(7200)), ptr(int64(3600))},
		{"archive permanent", store.Retention{Archive: store.Permanent, Workflows: time.Hour}, nil, ptr(int64(3600))},
		{"finite again", store.Retention{Archive: 3 * time.Hour, Workflows: time.Hour}, ptr(int64(3 * 3600)), ptr(int64(3600))},
	} {
		t.Run(step.name, func(t *testing.T) {
			cfg := base
			cfg.Retention = step.retention
			s, err := store.Open(ctx, cfg)
			require.NoError(t, err)
			defer func() { require.NoError(t, s.Close(ctx)) }()
			assert.Equal(t, step.archive, ttlOf(s, store.CollEventsArchive, "idx_archived_ttl"), "events_archive")
			assert.Equal(t, step.workflows, ttlOf(s, store.CollWorkflows, "idx_completed_ttl"), "workflows")
			if step.name == "defaults" {
				_, err := s.CreateWorkflow(ctx, store.Workflow{WorkflowID: "wf-kept", Name: "kept", Steps: []string{"validate"}})
				require.NoError(t, err)
			}
			_, err = s.GetWorkflow(ctx, "wf-kept")
			assert.NoError(t, err, "a rebuild keeps the documents")
		})
	}
}

func ptr[T any](v T) *T { return &v }

// TestWorkflowExpiredTellsADeletedWorkflowFromAnUnknownOne: a workflow
// not found is expired only when its events are older than
// Retention.Workflows; younger ones are a workflow still being created,
// and an id without events was never one.
func TestWorkflowExpiredTellsADeletedWorkflowFromAnUnknownOne(t *testing.T) {
	clock := storetest.NewClock()
	ctx := context.Background()
	s := storetest.Open(t, store.Config{Now: clock.Now, Retention: store.Retention{Workflows: time.Hour}})
	env := events.Envelope{EventType: events.WorkflowCreated, EventID: "evt-wf-gone", Timestamp: events.At(clock.Now()),
		SchemaVersion: events.SchemaVersion, Payload: []byte(`{"workflowId":"wf-gone","name":"n","steps":["validate"],"priority":"low"}`)}
	require.NoError(t, s.InsertEvent(ctx, env))

	expired, err := s.WorkflowExpired(ctx, "wf-gone")
	require.NoError(t, err)
	assert.False(t, expired, "events younger than the retention: still being created")
	clock.Advance(time.Hour + time.Second)
	expired, err = s.WorkflowExpired(ctx, "wf-gone")
	require.NoError(t, err)
	assert.True(t, expired, "its events are older than the retention")
	expired, err = s.WorkflowExpired(ctx, "wf-never")
	require.NoError(t, err)
	assert.False(t, expired, "no events: never a workflow")
}
