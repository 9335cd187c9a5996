package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/internal/status"
	"github.com/streamops/streamops/internal/store"
)

// testSaveBreakerIsACompareAndSetOnTheOpening: SaveBreaker applies only
// while the stored opening is the one the caller names, so of two relays
// moving the same breaker exactly one does; it sets the breaker's fields
// alone, keeping a pause.
func testSaveBreakerIsACompareAndSetOnTheOpening(t *testing.T, open Opener) {
	clock := NewClock()
	s := open(t, store.Config{Now: clock.Now})
	t1 := clock.Now().Add(123456 * time.Nanosecond) // finer than the store keeps
	t2 := t1.Add(time.Minute)
	until := func(t time.Time) *time.Time { u := t.Add(time.Minute); return &u }
	openAt := func(at time.Time, failures int) store.PartnerEndpoint {
		return store.PartnerEndpoint{PartnerID: "acme", State: status.BreakerOpen, ConsecutiveFailures: failures, OpenedAt: &at,
			OpenUntil: until(at), LastError: "HTTP 503"}
	}
	closedEp := store.PartnerEndpoint{PartnerID: "acme", State: status.BreakerClosed}
	steps := []struct {
		name    string
		ep      store.PartnerEndpoint
		expect  *time.Time
		applied bool
		state   string
		opened  *time.Time
	}{
		{"counting on an endpoint never stored creates it", store.PartnerEndpoint{PartnerID: "acme", State: status.BreakerClosed, ConsecutiveFailures: 4}, nil, true, status.BreakerClosed, nil},
		{"the first relay opens it", openAt(t1, 5), nil, true, status.BreakerOpen, &t1},
		{"the second, from the same closed breaker, is refused", openAt(t1.Add(time.Millisecond), 5), nil, false, status.BreakerOpen, &t1},
		{"counting in the same opening applies", openAt(t1, 6), &t1, true, status.BreakerOpen, &t1},
		{"a failed probe opens it again", openAt(t2, 7), &t1, true, status.BreakerOpen, &t2},
		{"a stale relay closing the first opening is refused", closedEp, &t1, false, status.BreakerOpen, &t2},
		{"closing the current opening applies", closedEp, &t2, true, status.BreakerClosed, nil},
		{"closing it twice is refused", closedEp, &t2, false, status.BreakerClosed, nil},
	}
	_, _, err := s.PausePartner(ctx(t), "globex", "ops", "")
	require.NoError(t, err)
	for _, st := range steps {
		applied, err := s.SaveBreaker(ctx(t), st.ep, st.expect)
		require.NoError(t, err, st.name)
		assert.Equal(t, st.applied, applied, st.name)
		eps, err := s.PartnerEndpoints(ctx(t), "acme")
		require.NoError(t, err)
		ep := eps["acme"]
		assert.Equal(t, st.state, ep.State, st.name)
		if st.opened == nil {
			assert.Nil(t, ep.OpenedAt, st.name)
		} else if assert.NotNil(t, ep.OpenedAt, st.name) {
			assert.True(t, st.opened.Truncate(time.Millisecond).Equal(*ep.OpenedAt), "%s: opened at %v", st.name, ep.OpenedAt)
		}
	}
	applied, err := s.SaveBreaker(ctx(t), store.PartnerEndpoint{PartnerID: "globex", State: status.BreakerClosed, ConsecutiveFailures: 2}, nil)
	require.NoError(t, err)
	assert.True(t, applied)
	eps, err := s.PartnerEndpoints(ctx(t), "globex")
	require.NoError(t, err)
	assert.True(t, eps["globex"].Paused, "a breaker save keeps a pause")
	assert.Equal(t, 2, eps["globex"].ConsecutiveFailures)
	_, err = s.SaveBreaker(ctx(t), store.PartnerEndpoint{}, nil)
	assert.Error(t, err, "no partner id")
}

// testABreakerSaveKeepsTheFailingRun: the failing run's start and the
// warning reported for it (the auto-disable's state) are the breaker's
// fields: saved and read back to the millisecond, and removed by a save
// without them (a success ended the run).
func testABreakerSaveKeepsTheFailingRun(t *testing.T, open Opener) {
	clock := NewClock()
	s := open(t, store.Config{Now: clock.Now})
	since := clock.Now().Add(123456 * time.Nanosecond)
	steps := []struct {
		name   string
		since  *time.Time
		warned int
	}{
		{"a run begins", &since, 0},
		{"warned at half the period", &since, 50},
		{"a success ends it", nil, 0},
	}
	for _, st := range steps {
		applied, err := s.SaveBreaker(ctx(t), store.PartnerEndpoint{PartnerID: "acme", State: status.BreakerClosed,
			FailingSince: st.since, FailingWarned: st.warned}, nil)
		require.NoError(t, err, st.name)
		require.True(t, applied, st.name)
		eps, err := s.PartnerEndpoints(ctx(t), "acme")
		require.NoError(t, err)
		ep := eps["acme"]
		assert.Equal(t, st.warned, ep.FailingWarned, st.name)
		if st.since == nil {
			assert.Nil(t, ep.FailingSince, st.name)
		} else if assert.NotNil(t, ep.FailingSince, st.name) {
			assert.True(t, st.since.Truncate(time.Millisecond).Equal(*ep.FailingSince), st.name)
		}
	}
}

// SaveBreakers stores the breakers of partners never seen before, as the
// relay saves a breaker (store.Store.SaveBreaker): a test's fixture of
// partner endpoints in given states.
func SaveBreakers(t testing.TB, s *store.Store, eps ...store.PartnerEndpoint) {
	t.Helper()
	for _, ep := range eps {
		applied, err := s.SaveBreaker(context.Background(), ep, nil)
		require.NoError(t, err, ep.PartnerID)
		require.True(t, applied, "%s: a partner endpoint already stored", ep.PartnerID)
	}
}
