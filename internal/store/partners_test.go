package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.mongodb.org/mongo-driver/bson"

	"github.com/streamops/streamops/internal/status"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/store/storetest"
)

func storedPartner(id string) store.StoredPartner {
	return store.StoredPartner{ID: id, Name: "Acme", URL: "https://acme.example/hooks", Source: store.PartnerSourceAPI,
		Subscriptions: []store.PartnerSubscription{{EventTypes: []string{"workflow.*"}, Filter: `{"payload.amount":{"$gt":100}}`}},
		Secrets:       []store.PartnerSecret{{ID: "s1", Sealed: []byte("sealed-1")}}}
}

// TestAPartnerIsCreatedOnceAndReadBackAsWritten: the filter is kept as
// text ($ operators are no field names), a second create is a duplicate.
func TestAPartnerIsCreatedOnceAndReadBackAsWritten(t *testing.T) {
	clock := storetest.NewClock()
	ctx := context.Background()
	s := storetest.Open(t, store.Config{Now: clock.Now})

	created, err := s.CreatePartner(ctx, storedPartner("acme"))
	require.NoError(t, err)
	assert.Equal(t, 1, created.Version)
	_, err = s.CreatePartner(ctx, storedPartner("acme"))
	require.ErrorIs(t, err, store.ErrDuplicate)

	got, err := s.GetPartner(ctx, "acme")
	require.NoError(t, err)
	assert.Equal(t, `{"payload.amount":{"$gt":100}}`, got.Subscriptions[0].Filter)
	assert.Equal(t, []byte("sealed-1"), got.Secrets[0].Sealed)
	assert.Equal(t, clock.Now(), got.CreatedAt)
	assert.Equal(t, clock.Now(), got.Secrets[0].CreatedAt, "the first secret was made with the partner")
	assert.Nil(t, got.DeletedAt)

	_, err = s.GetPartner(ctx, "nobody")
	require.ErrorIs(t, err, store.ErrNotFound)
}

// TestAPartnerUpdateNamesTheVersionItRead: the right version changes it
// and moves the version; a stale one is a conflict and changes nothing.
func TestAPartnerUpdateNamesTheVersionItRead(t *testing.T) {
	ctx := context.Background()
	s := storetest.Open(t, store.Config{Now: storetest.NewClock().Now})
	_, err := s.CreatePartner(ctx, storedPartner("acme"))
	require.NoError(t, err)

	rate := 2.0
	change := storedPartner("acme")
	change.URL, change.RateLimit, change.Subscriptions = "https://acme.example/v2", &rate, nil
	tests := []struct {
		name     string
		expected int
		err      error
		url      string
		version  int
	}{
		{"the version read", 1, nil, "https://acme.example/v2", 2},
		{"a stale version", 1, store.ErrVersionConflict, "https://acme.example/v2", 2},
	}
	for _, c := range tests {
		t.Run(c.name, func(t *testing.T) {
			_, err := s.UpdatePartner(ctx, change, c.expected)
			if c.err != nil {
				require.ErrorIs(t, err, c.err)
			} else {
				require.NoError(t, err)
			}
			got, err := s.GetPartner(ctx, "acme")
			require.NoError(t, err)
			assert.Equal(t, c.url, got.URL)
			assert.Equal(t, c.version, got.Version)
			assert.Equal(t, &rate, got.RateLimit)
			assert.Empty(t, got.Subscriptions, "an update sets every field, absent ones cleared")
			assert.Len(t, got.Secrets, 1, "an update never touches the secrets")
		})
	}
	change.ID = "nobody"
	_, err = s.UpdatePartner(ctx, change, 1)
	require.ErrorIs(t, err, store.ErrNotFound)
}

// TestADeletedPartnerIsKeptButGoneFromTheList: deleting disables it for
// good; its document stays, it cannot be changed or created again.
func TestADeletedPartnerIsKeptButGoneFromTheList(t *testing.T) {
	ctx := context.Background()
	s := storetest.Open(t, store.Config{Now: storetest.NewClock().Now})
	for _, id := range []string{"acme", "globex"} {
		_, err := s.CreatePartner(ctx, storedPartner(id))
		require.NoError(t, err)
	}
	disabled, err := s.SetPartnerDisabled(ctx, "globex", true, "maintenance", "admin-1")
	require.NoError(t, err)
	assert.True(t, disabled.Disabled)
	assert.Equal(t, "admin-1", disabled.DisabledBy)
	enabled, err := s.SetPartnerDisabled(ctx, "globex", false, "", "admin-1")
	require.NoError(t, err)
	assert.False(t, enabled.Disabled)
	assert.Equal(t, "maintenance", enabled.DisabledReason, "the last disable is kept for the record")

	deleted, err := s.MarkPartnerDeleted(ctx, "acme", "deleted", "admin-1")
	require.NoError(t, err)
	require.NotNil(t, deleted.DeletedAt)
	assert.True(t, deleted.Disabled)

	list, err := s.ListPartners(ctx)
	require.NoError(t, err)
	require.Len(t, list, 1)
	assert.Equal(t, "globex", list[0].ID)
	asked, err := s.ListPartners(ctx, "acme", "nobody")
	require.NoError(t, err)
	require.Len(t, asked, 2, "a deleted partner asked for by id comes too")
	assert.Equal(t, "acme", asked[0].ID)

	kept, err := s.GetPartner(ctx, "acme")
	require.NoError(t, err)
	assert.NotNil(t, kept.DeletedAt, "the history stays")
	_, err = s.MarkPartnerDeleted(ctx, "acme", "deleted", "admin-1")
	require.ErrorIs(t, err, store.ErrNotFound)
	_, err = s.UpdatePartner(ctx, storedPartner("acme"), kept.Version)
	require.ErrorIs(t, err, store.ErrNotFound)
	_, err = s.SetPartnerDisabled(ctx, "acme", false, "", "admin-1")
	require.ErrorIs(t, err, store.ErrNotFound)
	_, err = s.CreatePartner(ctx, storedPartner("acme"))
	require.ErrorIs(t, err, store.ErrDuplicate, "a deleted partner's id stays taken by its history")
}

// TestARotationEndsTheOtherSecretsAtTheOverlap: the old secret keeps
// signing until the end of the overlap, an ended one is dropped.
func TestARotationEndsTheOtherSecretsAtTheOverlap(t *testing.T) {
	clock := storetest.NewClock()
	ctx := context.Background()
	s := storetest.Open(t, store.Config{Now: clock.Now})
	_, err := s.CreatePartner(ctx, storedPartner("acme"))
	require.NoError(t, err)

	end := clock.Now().Add(time.Hour)
	got, err := s.AddPartnerSecret(ctx, "acme", store.PartnerSecret{ID: "s2", Sealed: []byte("sealed-2")}, end)
	require.NoError(t, err)
	require.Len(t, got.Secrets, 2)
	assert.Equal(t, end, *got.Secrets[0].NotAfter)
	assert.Nil(t, got.Secrets[1].NotAfter)
	assert.True(t, got.Secrets[0].LiveAt(clock.Now()))
	assert.False(t, got.Secrets[0].LiveAt(end))

	clock.Advance(2 * time.Hour)
	got, err = s.AddPartnerSecret(ctx, "acme", store.PartnerSecret{ID: "s3", Sealed: []byte("sealed-3")}, clock.Now())
	require.NoError(t, err)
	ids := []string{}
	for _, sec := range got.Secrets {
		ids = append(ids, sec.ID)
	}
	assert.Equal(t, []string{"s2", "s3"}, ids, "s1 ended before: dropped")
	assert.False(t, got.Secrets[0].LiveAt(clock.Now()), "an overlap of 0 stops the old one at once")
	assert.Equal(t, 3, got.Version)
}

// TestCancellingAPartnersOutboxEndsOnlyItsWaitingEntries: pending and
// failed entries of the partner become dead letters with the reason;
// others' and one in flight are untouched.
func TestCancellingAPartnersOutboxEndsOnlyItsWaitingEntries(t *testing.T) {
	ctx := context.Background()
	s := storetest.Open(t, store.Config{Now: storetest.NewClock().Now})
	clock := storetest.NewClock()
	_, err := s.EnqueueOutbox(ctx, store.OutboxEntry{OutboxID: "a3", TargetProvider: "acme", EventType: "x"})
	require.NoError(t, err)
	claimed, err := s.ClaimDue(ctx, clock.Now().Add(time.Hour), time.Minute, 1)
	require.NoError(t, err)
	require.Len(t, claimed, 1)
	_, err = s.EnqueueOutbox(ctx,
		store.OutboxEntry{OutboxID: "a1", TargetProvider: "acme", EventType: "x"},
		store.OutboxEntry{OutboxID: "g1", TargetProvider: "globex", EventType: "x"})
	require.NoError(t, err)
	// a2 failed an attempt and waits for its retry.
	_, err = s.Collection(store.CollOutbox).InsertOne(ctx, bson.M{"_id": "a2", "outbox_id": "a2", "target_provider": "acme",
		"status": status.OutboxFailed, "attempts": 1, "next_attempt_at": clock.Now().Add(time.Minute)})
	require.NoError(t, err)

	n, err := s.CancelPartnerOutbox(ctx, "acme", "cancelled: partner deleted")
	require.NoError(t, err)
	assert.Equal(t, 2, n)
	for id, want := range map[string]string{"a1": status.OutboxDeadLetter, "a2": status.OutboxDeadLetter, "a3": status.OutboxProcessing, "g1": status.OutboxPending} {
		e, err := s.GetOutboxEntry(ctx, id)
		require.NoError(t, err)
		assert.Equal(t, want, e.Status, id)
		if want == status.OutboxDeadLetter {
			assert.Equal(t, "cancelled: partner deleted", e.LastError)
		}
	}
}
