package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.mongodb.org/mongo-driver/bson"

	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/store/storetest"
)

// TestBackfillRetentionBringsEarlierDocumentsUnderTheRules: documents as
// an earlier version stored them (events with ttl_expires_at set at
// insert, webhook rows without expire_at) are brought under the rules,
// and nothing else changes.
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

	got, err := s.BackfillRetention(ctx)
	require.NoError(t, err)
	assert.Equal(t, store.Backfilled{EventsHeld: 1, WebhookEventsExpired: 1}, got)

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
