package archive_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/archive"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/store/storetest"
)

const day = 24 * time.Hour

func newEvent(t *testing.T) events.Envelope {
	t.Helper()
	env, err := events.NewEvent(events.TaskProcessingPayload{TaskID: events.NewTaskID(), StartedAt: events.Now()}, nil)
	require.NoError(t, err)
	return env
}

// insertPublished stores envs and marks them published, as the functions
// leave them once Kafka took them.
func insertPublished(t *testing.T, s *store.Store, envs ...events.Envelope) {
	t.Helper()
	_, err := s.InsertEvents(context.Background(), envs)
	require.NoError(t, err)
	ids := make([]string, len(envs))
	for i, env := range envs {
		ids[i] = env.EventID
	}
	require.NoError(t, s.MarkPublished(context.Background(), ids...))
}

func TestArchiverCopiesEveryDueEventOldestFirstInBatches(t *testing.T) {
	clock := storetest.NewClock()
	ctx := context.Background()
	s := storetest.Open(t, store.Config{Now: clock.Now, EventTTL: 90 * day})

	var old []events.Envelope
	for range 7 {
		old = append(old, newEvent(t))
	}
	insertPublished(t, s, old...)
	clock.Advance(60 * day)
	young := newEvent(t)
	insertPublished(t, s, young)
	clock.Advance(31 * day) // the old ones were due a day ago, the young one in 59 days

	a, err := archive.New(archive.Config{Store: s, BatchSize: 3})
	require.NoError(t, err)
	n, err := a.Run(ctx)
	require.NoError(t, err)
	assert.Equal(t, 7, n, "every due event, in batches of three")
	for _, env := range old {
		doc, err := s.GetArchivedEvent(ctx, env.EventID)
		require.NoError(t, err)
		assert.Equal(t, env.EventType, events.Type(doc.EventType))
		back, err := doc.Envelope()
		require.NoError(t, err)
		assert.JSONEq(t, string(env.Payload), string(back.Payload), "the archive keeps the whole event")
		live, err := s.GetEvent(ctx, env.EventID)
		require.NoError(t, err)
		require.NotNil(t, live.TTLExpiresAt, "archived: the TTL index may delete it now")
		assert.Equal(t, clock.Now(), *live.TTLExpiresAt)
	}
	_, err = s.GetArchivedEvent(ctx, young.EventID)
	assert.ErrorIs(t, err, store.ErrNotFound, "not due yet")
	doc, err := s.GetEvent(ctx, young.EventID)
	require.NoError(t, err)
	assert.Nil(t, doc.TTLExpiresAt, "an unarchived event has no ttl_expires_at for the TTL index to act on")

	n, err = a.Run(ctx)
	require.NoError(t, err)
	assert.Zero(t, n, "a second run copies nothing twice")
}

// TestAnEventIsNeverDeletedUnarchivedEvenWhenTheArchiverMissesAWeek: with
// a one-day TTL and a TTL monitor sweeping many times a second, the daily
// archiver misses seven runs in a row (the clock moves a day at a time).
// Each day a webhook_events row already past its retention is stored and
// seen deleted, so a TTL sweep has run since, and the due event is still
// in events. The first run after the week archives it, and the TTL index
// then deletes it. An event still waiting to be published is held until it
// is published. The engine's own TTL monitor does the deleting, on real
// time; the clock starts in the past, so whatever it stamps is past.
func TestAnEventIsNeverDeletedUnarchivedEvenWhenTheArchiverMissesAWeek(t *testing.T) {
	storetest.Require(t, storetest.FastTTL)
	clock := storetest.NewClock()
	require.True(t, clock.Now().Add(30*day).Before(time.Now()), "the test clock runs in the past")
	ctx := context.Background()
	s := storetest.Open(t, store.Config{Now: clock.Now, EventTTL: day, WebhookEventTTL: day, ExpireInterval: 20 * time.Millisecond})
	a, err := archive.New(archive.Config{Store: s})
	require.NoError(t, err)
	gone := func(get func() error) func() bool {
		return func() bool { return errors.Is(get(), store.ErrNotFound) }
	}
	const within = 30 * time.Second // a bound on the engine, not on any schedule

	// A first event archived on time: the TTL index deletes it.
	onTime := newEvent(t)
	insertPublished(t, s, onTime)
	clock.Advance(day)
	n, err := a.Run(ctx)
	require.NoError(t, err)
	require.Equal(t, 1, n)
	require.Eventually(t, gone(func() error { _, err := s.GetEvent(ctx, onTime.EventID); return err }), within, 10*time.Millisecond,
		"an archived event is deleted by the TTL index")

	late, pending := newEvent(t), newEvent(t)
	insertPublished(t, s, late)
	_, err = s.InsertEvents(ctx, []events.Envelope{pending}) // never published this week
	require.NoError(t, err)
	for d := 1; d <= 7; d++ {
		clock.Advance(day) // the archiver's run of that day is missed
		sentinel, err := s.InsertWebhookEvent(ctx, store.WebhookEvent{Provider: "stripe", ProviderEventID: "evt_day_" + string(rune('0'+d)),
			EventType: "invoice.paid", ReceivedAt: clock.Now().Add(-day - time.Second), Payload: store.JSONDoc(`{}`)})
		require.NoError(t, err)
		require.Eventually(t, gone(func() error { _, err := s.GetWebhookEvent(ctx, sentinel.EventID); return err }), within, 10*time.Millisecond,
			"day %d: a TTL sweep ran", d)
		for _, env := range []events.Envelope{late, pending} {
			doc, err := s.GetEvent(ctx, env.EventID)
			require.NoError(t, err, "day %d: %s due for %d days, not archived, still in events", d, env.EventID, d)
			assert.Nil(t, doc.TTLExpiresAt, "day %d", d)
			_, err = s.GetArchivedEvent(ctx, env.EventID)
			assert.ErrorIs(t, err, store.ErrNotFound, "day %d", d)
		}
	}

	n, err = a.Run(ctx)
	require.NoError(t, err)
	assert.Equal(t, 1, n, "the week's due published event, caught up by one run")
	archived, err := s.GetArchivedEvent(ctx, late.EventID)
	require.NoError(t, err)
	assert.Equal(t, late.EventID, archived.EventID)
	require.Eventually(t, gone(func() error { _, err := s.GetEvent(ctx, late.EventID); return err }), within, 10*time.Millisecond,
		"archived, then deleted")

	_, err = s.GetEvent(ctx, pending.EventID)
	require.NoError(t, err, "an event waiting to be published stays for the retry-sweeper")
	require.NoError(t, s.MarkPublished(ctx, pending.EventID))
	n, err = a.Run(ctx)
	require.NoError(t, err)
	assert.Equal(t, 1, n, "published: archived by the next run")
	_, err = s.GetArchivedEvent(ctx, pending.EventID)
	require.NoError(t, err)
	require.Eventually(t, gone(func() error { _, err := s.GetEvent(ctx, pending.EventID); return err }), within, 10*time.Millisecond)
}
