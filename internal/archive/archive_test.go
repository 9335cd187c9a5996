package archive_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/archive"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/store/enginetest"
	"github.com/streamops/streamops/internal/store/storetest"
)

func TestArchiverCopiesEventsBeforeTheyExpire(t *testing.T) {
	clock := storetest.NewClock()
	ctx := context.Background()
	s := enginetest.Open(t, store.Config{Now: clock.Now, EventTTL: 90 * 24 * time.Hour})

	mk := func() events.Envelope {
		env, err := events.NewEvent(events.TaskProcessingPayload{TaskID: events.NewTaskID(), StartedAt: events.Now()}, nil)
		require.NoError(t, err)
		return env
	}
	var old []events.Envelope
	for range 7 {
		old = append(old, mk())
	}
	_, err := s.InsertEvents(ctx, old)
	require.NoError(t, err)
	clock.Advance(60 * 24 * time.Hour)
	young := mk()
	require.NoError(t, s.InsertEvent(ctx, young))
	clock.Advance(29 * 24 * time.Hour) // the old ones expire in one day, the young one in 61

	a, err := archive.New(archive.Config{Store: s, Now: clock.Now, BatchSize: 3})
	require.NoError(t, err)
	n, err := a.Run(ctx)
	require.NoError(t, err)
	assert.Equal(t, 7, n, "every event expiring within two days, in batches of three")
	for _, env := range old {
		doc, err := s.GetArchivedEvent(ctx, env.EventID)
		require.NoError(t, err)
		assert.Equal(t, env.EventType, events.Type(doc.EventType))
		back, err := doc.Envelope()
		require.NoError(t, err)
		assert.JSONEq(t, string(env.Payload), string(back.Payload), "the archive keeps the whole event")
	}
	_, err = s.GetArchivedEvent(ctx, young.EventID)
	assert.ErrorIs(t, err, store.ErrNotFound, "not expiring yet")

	n, err = a.Run(ctx)
	require.NoError(t, err)
	assert.Zero(t, n, "a second run copies nothing twice")
}
