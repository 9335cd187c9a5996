package storetest

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/internal/status"
	"github.com/streamops/streamops/internal/store"
)

// testPauseResume: pausing and resuming a partner are conditional
// upserts that say whether they changed anything; a repeated pause keeps
// the first one's time, operator and reason, a resume keeps the ended
// pause beside itself, and neither touches a partner it does not name.
func testPauseResume(t *testing.T, open Opener) {
	clock := NewClock()
	s := open(t, store.Config{Now: clock.Now})
	type step struct {
		name        string
		act         func() (store.PartnerEndpoint, bool, error)
		changed     bool
		paused      bool
		pausedBy    string
		reason      string
		resumedBy   string
		pausedAtIdx int // which pause's time PausedAt shows: 0 none, n the nth action
	}
	pause := func(id, by, reason string) func() (store.PartnerEndpoint, bool, error) {
		return func() (store.PartnerEndpoint, bool, error) { return s.PausePartner(ctx(t), id, by, reason) }
	}
	resume := func(id, by string) func() (store.PartnerEndpoint, bool, error) {
		return func() (store.PartnerEndpoint, bool, error) { return s.ResumePartner(ctx(t), id, by) }
	}
	steps := []step{
		{name: "resuming a partner never seen changes nothing", act: resume("acme", "ops-1")},
		{name: "the first pause creates the endpoint, closed and paused", act: pause("acme", "ops-1", "maintenance"),
			changed: true, paused: true, pausedBy: "ops-1", reason: "maintenance", pausedAtIdx: 2},
		{name: "pausing a paused partner changes nothing", act: pause("acme", "ops-2", "again"),
			paused: true, pausedBy: "ops-1", reason: "maintenance", pausedAtIdx: 2},
		{name: "resume ends the pause and keeps it beside itself", act: resume("acme", "ops-2"),
			changed: true, pausedBy: "ops-1", reason: "maintenance", resumedBy: "ops-2", pausedAtIdx: 2},
		{name: "resuming a resumed partner changes nothing", act: resume("acme", "ops-3"),
			pausedBy: "ops-1", reason: "maintenance", resumedBy: "ops-2", pausedAtIdx: 2},
		{name: "a pause without a reason drops the previous one's", act: pause("acme", "ops-3", ""),
			changed: true, paused: true, pausedBy: "ops-3", resumedBy: "ops-2", pausedAtIdx: 6},
	}
	at := map[int]time.Time{}
	for i, st := range steps {
		clock.Advance(time.Second)
		at[i+1] = clock.Now()
		ep, changed, err := st.act()
		require.NoError(t, err, st.name)
		assert.Equal(t, "acme", ep.PartnerID, st.name)
		assert.Equal(t, status.BreakerClosed, ep.State, st.name)
		assert.Equal(t, st.changed, changed, st.name)
		assert.Equal(t, st.paused, ep.Paused, st.name)
		assert.Equal(t, st.pausedBy, ep.PausedBy, st.name)
		assert.Equal(t, st.reason, ep.PauseReason, st.name)
		assert.Equal(t, st.resumedBy, ep.ResumedBy, st.name)
		if st.pausedAtIdx == 0 {
			assert.Nil(t, ep.PausedAt, st.name)
		} else if assert.NotNil(t, ep.PausedAt, st.name) {
			assert.True(t, at[st.pausedAtIdx].Equal(*ep.PausedAt), "%s: paused at %s, want %s", st.name, ep.PausedAt, at[st.pausedAtIdx])
		}
		paused, err := s.PartnerPaused(ctx(t), "acme")
		require.NoError(t, err)
		assert.Equal(t, st.paused, paused, st.name)
	}
	paused, err := s.PartnerPaused(ctx(t), "globex")
	require.NoError(t, err)
	assert.False(t, paused, "a partner never seen is not paused")
	_, _, err = s.PausePartner(ctx(t), "", "ops-1", "")
	assert.Error(t, err, "a pause names its partner")
}

// testBreakerSaveKeepsPause: the relay's breaker save sets the breaker's
// fields alone, so it never erases a pause; its cleared fields (a closed
// breaker's opened_at) are cleared, the pause's kept.
func testBreakerSaveKeepsPause(t *testing.T, open Opener) {
	clock := NewClock()
	s := open(t, store.Config{Now: clock.Now})
	_, _, err := s.PausePartner(ctx(t), "acme", "ops-1", "maintenance")
	require.NoError(t, err)
	opened, until := clock.Now(), clock.Now().Add(time.Minute)
	for _, tc := range []struct {
		name     string
		save     store.PartnerEndpoint
		openedAt *time.Time // the opening the save replaces
	}{
		{"an opening breaker", store.PartnerEndpoint{PartnerID: "acme", State: status.BreakerOpen, ConsecutiveFailures: 5,
			OpenedAt: &opened, OpenUntil: &until, LastError: "HTTP 503", LastFailureAt: &opened}, nil},
		{"a closing breaker", store.PartnerEndpoint{PartnerID: "acme", State: status.BreakerClosed, LastSuccessAt: &until}, &opened},
	} {
		applied, err := s.SaveBreaker(ctx(t), tc.save, tc.openedAt)
		require.NoError(t, err, tc.name)
		require.True(t, applied, tc.name)
		eps, err := s.PartnerEndpoints(ctx(t), "acme")
		require.NoError(t, err)
		got := eps["acme"]
		assert.True(t, got.Paused, "%s keeps the pause", tc.name)
		assert.Equal(t, "ops-1", got.PausedBy, tc.name)
		assert.Equal(t, "maintenance", got.PauseReason, tc.name)
		assert.NotNil(t, got.PausedAt, tc.name)
		assert.Equal(t, tc.save.State, got.State, tc.name)
		assert.Equal(t, tc.save.ConsecutiveFailures, got.ConsecutiveFailures, tc.name)
		assert.Equal(t, tc.save.LastError, got.LastError, tc.name)
		assert.Equal(t, tc.save.OpenedAt == nil, got.OpenedAt == nil, "%s sets or clears opened_at", tc.name)
		assert.Equal(t, tc.save.OpenUntil == nil, got.OpenUntil == nil, "%s sets or clears open_until", tc.name)
	}
	applied, err := s.SaveBreaker(ctx(t), store.PartnerEndpoint{PartnerID: "globex", State: status.BreakerClosed}, nil)
	require.NoError(t, err)
	require.True(t, applied)
	eps, err := s.PartnerEndpoints(ctx(t), "globex")
	require.NoError(t, err)
	assert.False(t, eps["globex"].Paused, "a breaker save upserts an endpoint never seen, not paused")
}

// testClaimSkipsBlocked: ClaimDue and NextDueOutbox leave the entries of
// a paused partner, and of a disabled one, waiting in the status they have
// (pending or failed, attempts unchanged) and keep oldest-first order for
// the rest; after the resume (the enable) they are claimed oldest first.
func testClaimSkipsBlocked(t *testing.T, open Opener) {
	for _, b := range []struct {
		name           string
		block, unblock func(*store.Store) error
	}{
		{"paused", func(s *store.Store) error { _, _, err := s.PausePartner(ctx(t), "acme", "ops-1", ""); return err },
			func(s *store.Store) error { _, _, err := s.ResumePartner(ctx(t), "acme", "ops-1"); return err }},
		{"disabled", func(s *store.Store) error {
			if _, err := s.CreatePartner(ctx(t), store.StoredPartner{ID: "acme", URL: "https://acme.example/", Source: store.PartnerSourceAPI}); err != nil {
				return err
			}
			_, err := s.SetPartnerDisabled(ctx(t), "acme", true, "endpoint gone", "ops-1")
			return err
		}, func(s *store.Store) error {
			_, err := s.SetPartnerDisabled(ctx(t), "acme", false, "", "ops-1")
			return err
		}},
	} {
		t.Run(b.name, func(t *testing.T) { claimSkipsBlocked(t, open, b.block, b.unblock) })
	}
}

func claimSkipsBlocked(t *testing.T, open Opener, block, unblock func(*store.Store) error) {
	clock := NewClock()
	s := open(t, store.Config{Now: clock.Now})
	start := clock.Now().Add(-time.Minute)
	targets := []string{"acme", "globex", "acme", "kafka", "acme", "globex"}
	entries := outboxEntries(len(targets), start, time.Second)
	for i := range entries {
		entries[i].TargetProvider = targets[i]
	}
	enqueue(t, s, entries[:1])
	// entries[0] fails once, so a failed entry of the paused partner waits too.
	first := claimAll(t, s, clock.Now(), 1)
	_, err := s.SettleOutbox(ctx(t), store.Settlement{Entry: first[entries[0].OutboxID], Outcome: status.OutcomeRetry,
		NextAttemptAt: start, Error: "HTTP 500"})
	require.NoError(t, err)
	enqueue(t, s, entries[1:])

	blocked, err := s.BlockedPartners(ctx(t), clock.Now())
	require.NoError(t, err)
	assert.Empty(t, blocked)
	require.NoError(t, block(s))
	blocked, err = s.BlockedPartners(ctx(t), clock.Now())
	require.NoError(t, err)
	assert.Equal(t, []string{"acme"}, blocked)

	next, ok, err := s.NextDueOutbox(ctx(t))
	require.NoError(t, err)
	require.True(t, ok)
	assert.True(t, entries[1].NextAttemptAt.Equal(next), "the earliest entry of a partner not paused: got %s", next)
	ids := func(es []store.OutboxEntry) []string {
		out := make([]string, len(es))
		for i, e := range es {
			out[i] = e.OutboxID
		}
		return out
	}
	got, err := s.ClaimDue(ctx(t), clock.Now(), time.Minute, 10)
	require.NoError(t, err)
	assert.Equal(t, []string{entries[1].OutboxID, entries[3].OutboxID, entries[5].OutboxID}, ids(got),
		"the paused partner's entries are left, the rest oldest first")
	_, ok, err = s.NextDueOutbox(ctx(t))
	require.NoError(t, err)
	assert.False(t, ok, "only the paused partner's entries wait")
	for i, want := range map[int]struct {
		status   string
		attempts int
	}{0: {status.OutboxFailed, 1}, 2: {status.OutboxPending, 0}, 4: {status.OutboxPending, 0}} {
		e, err := s.GetOutboxEntry(ctx(t), entries[i].OutboxID)
		require.NoError(t, err)
		assert.Equal(t, want.status, e.Status, "entry %d waits as it was", i)
		assert.Equal(t, want.attempts, e.Attempts, "entry %d", i)
	}

	require.NoError(t, unblock(s))
	got, err = s.ClaimDue(ctx(t), clock.Now(), time.Minute, 10)
	require.NoError(t, err)
	assert.Equal(t, []string{entries[0].OutboxID, entries[2].OutboxID, entries[4].OutboxID}, ids(got),
		"after the resume its entries are claimed, oldest first")
}

// testPartnerBacklog: a partner's backlog counts its entries pending,
// failed or processing, with the oldest one's created_at; completed and
// dead-lettered entries and other partners' are not counted.
func testPartnerBacklog(t *testing.T, open Opener) {
	clock := NewClock()
	s := open(t, store.Config{Now: clock.Now})
	type entry struct {
		target  string
		outcome status.Outcome // 0: stays pending; -1: stays processing
	}
	const processing = status.Outcome(-1)
	plan := []entry{
		{"acme", status.OutcomeDelivered},    // oldest, but delivered
		{"acme", status.OutcomeRetry},        // failed: the oldest waiting
		{"globex", 0},                        // another partner
		{"acme", processing},                 // claimed
		{"acme", status.OutcomeDeadLettered}, // over
		{"acme", 0},
	}
	created := make([]time.Time, len(plan))
	entries := outboxEntries(len(plan), clock.Now(), 0)
	for i := range entries {
		entries[i].TargetProvider = plan[i].target
		created[i] = clock.Now()
		enqueue(t, s, entries[i:i+1])
		clock.Advance(time.Second)
	}
	var settle []store.Settlement
	claimed := claimAll(t, s, clock.Now(), len(plan))
	for i, p := range plan {
		switch p.outcome {
		case processing:
		case 0:
			settle = append(settle, store.Settlement{Entry: claimed[entries[i].OutboxID], Outcome: status.OutcomeDeferred, NextAttemptAt: clock.Now()})
		default:
			settle = append(settle, store.Settlement{Entry: claimed[entries[i].OutboxID], Outcome: p.outcome,
				NextAttemptAt: clock.Now().Add(time.Hour), Error: "HTTP 500"})
		}
	}
	_, err := s.SettleOutbox(ctx(t), settle...)
	require.NoError(t, err)

	got, err := s.PartnerBacklog(ctx(t), "acme", "globex", "initech", "acme")
	require.NoError(t, err)
	for _, tc := range []struct {
		partner string
		count   int
		oldest  int // index into created; -1: none
	}{
		{"acme", 3, 1},
		{"globex", 1, 2},
		{"initech", 0, -1},
	} {
		b, ok := got[tc.partner]
		require.True(t, ok, tc.partner)
		assert.Equal(t, tc.count, b.Count, tc.partner)
		if tc.oldest < 0 {
			assert.Nil(t, b.OldestCreatedAt, tc.partner)
		} else if assert.NotNil(t, b.OldestCreatedAt, tc.partner) {
			assert.True(t, created[tc.oldest].Equal(*b.OldestCreatedAt), "%s: oldest %s, want %s", tc.partner, b.OldestCreatedAt, created[tc.oldest])
		}
	}
	assert.Len(t, got, 3)
}
