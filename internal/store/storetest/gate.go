package storetest

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/internal/status"
	"github.com/streamops/streamops/internal/store"
)

// testGateSlotsAreNeverShared: two relays reserving a partner's send
// slots at once never get the same slot: the slots reserved are exactly
// one interval apart from the first, whoever took them; a slot beyond
// the horizon is not reserved and moves nothing.
func testGateSlotsAreNeverShared(t *testing.T, open Opener) {
	clock := NewClock()
	s := open(t, store.Config{Now: clock.Now})
	now := clock.Now()
	const each, interval = 20, 500 * time.Millisecond
	var (
		mu    sync.Mutex
		slots = map[time.Time]int{}
		wg    sync.WaitGroup
	)
	for relay := range 2 {
		wg.Go(func() {
			for range each {
				slot, err := s.ReserveSendSlot(ctx(t), "partner-rate", now, interval, time.Hour)
				if !assert.NoError(t, err) || !assert.True(t, slot.Reserved, "relay %d", relay) {
					return
				}
				mu.Lock()
				slots[slot.At]++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	require.Len(t, slots, 2*each, "every reservation got a slot of its own")
	for i := range 2 * each {
		at := now.Add(time.Duration(i) * interval)
		assert.Equal(t, 1, slots[at], "slot %d (%s) taken once", i, at)
	}

	far, err := s.ReserveSendSlot(ctx(t), "partner-rate", now, interval, 3*time.Second)
	require.NoError(t, err)
	assert.False(t, far.Reserved, "a slot beyond the horizon is not reserved")
	assert.Equal(t, now.Add(2*each*interval), far.At, "it says when the next slot is")
	ep, err := s.PartnerEndpoints(ctx(t), "partner-rate")
	require.NoError(t, err)
	assert.Equal(t, now.Add(2*each*interval), *ep["partner-rate"].RateNextAt, "an unreserved slot moves nothing")
	assert.Equal(t, status.BreakerClosed, ep["partner-rate"].State, "the gate's document is a closed breaker's")

	later, err := s.ReserveSendSlot(ctx(t), "partner-rate", now.Add(time.Hour), interval, 0)
	require.NoError(t, err)
	assert.True(t, later.Reserved, "an idle partner's slot is now")
	assert.Equal(t, now.Add(time.Hour), later.At)
}

// testGateHoldOnlyMovesLater: a partner's hold is the latest asked for,
// starts once (a hold asked for while one is in force is no new start),
// is kept by a breaker save, and while it lasts ClaimDue leaves the
// partner's entries and NextDueOutbox says when it ends; a send slot is
// not reserved during it.
func testGateHoldOnlyMovesLater(t *testing.T, open Opener) {
	clock := NewClock()
	s := open(t, store.Config{Now: clock.Now})
	now := clock.Now()
	hold := func(until time.Time, code int, ra string) bool {
		t.Helper()
		started, err := s.HoldPartner(ctx(t), "partner-acme", store.Hold{Until: until, StatusCode: code, RetryAfter: ra}, clock.Now())
		require.NoError(t, err)
		return started
	}
	endpoint := func() store.PartnerEndpoint {
		t.Helper()
		eps, err := s.PartnerEndpoints(ctx(t), "partner-acme")
		require.NoError(t, err)
		return eps["partner-acme"]
	}
	_, err := s.ReserveSendSlot(ctx(t), "partner-acme", now, time.Second, time.Hour)
	require.NoError(t, err)
	assert.True(t, hold(now.Add(7*time.Second), 429, "7"), "the first hold starts")
	assert.False(t, hold(now.Add(3*time.Second), 503, "3"), "an earlier one changes nothing")
	ep := endpoint()
	assert.Equal(t, now.Add(7*time.Second), *ep.HoldUntil)
	assert.Equal(t, 429, ep.HoldStatusCode)
	assert.Equal(t, "7", ep.HoldRetryAfter)
	assert.Equal(t, status.BreakerClosed, ep.State)
	assert.False(t, hold(now.Add(9*time.Second), 503, "9"), "a later one while in force extends it, no new start")
	assert.Equal(t, now.Add(9*time.Second), *endpoint().HoldUntil)

	applied, err := s.SaveBreaker(ctx(t), store.PartnerEndpoint{PartnerID: "partner-acme",
		State: status.BreakerClosed, ConsecutiveFailures: 1, LastError: "HTTP 500"}, nil)
	require.NoError(t, err)
	require.True(t, applied)
	ep = endpoint()
	require.NotNil(t, ep.HoldUntil, "a breaker save keeps the hold")
	assert.Equal(t, now.Add(9*time.Second), *ep.HoldUntil)
	require.NotNil(t, ep.RateNextAt, "and the rate slot")
	assert.Equal(t, 1, ep.ConsecutiveFailures)
	slot, err := s.ReserveSendSlot(ctx(t), "partner-acme", now, time.Second, time.Hour)
	require.NoError(t, err)
	assert.False(t, slot.Reserved, "no slot while held")
	assert.Equal(t, now.Add(9*time.Second), *slot.HoldUntil)

	blocked, err := s.BlockedPartners(ctx(t), now)
	require.NoError(t, err)
	assert.Equal(t, []string{"partner-acme"}, blocked)
	entries := outboxEntries(2, now.Add(-time.Minute), 0)
	entries[1].TargetProvider = "partner-other"
	enqueue(t, s, entries)
	next, ok, err := s.NextDueOutbox(ctx(t))
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, now.Add(-time.Minute), next, "the other partner's entry is due")
	claimed := claimAll(t, s, now, 1)
	assert.Contains(t, claimed, entries[1].OutboxID, "only the partner not held is claimed")
	next, ok, err = s.NextDueOutbox(ctx(t))
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, now.Add(9*time.Second), next, "the held partner's entry waits for the hold's end")

	clock.Advance(9 * time.Second)
	claimAll(t, s, clock.Now(), 1)
	assert.True(t, hold(clock.Now().Add(time.Second), 429, "1"), "once the hold is over, a new one starts")
}

// testGateInFlightLeases: a partner's in-flight places are taken once
// each, however many relays ask at once; an expired lease is dropped
// for a new one, a released one frees its place.
func testGateInFlightLeases(t *testing.T, open Opener) {
	clock := NewClock()
	s := open(t, store.Config{Now: clock.Now})
	now := clock.Now()
	const limit = 2
	var (
		mu  sync.Mutex
		won []string
		wg  sync.WaitGroup
	)
	for i := range 8 {
		wg.Go(func() {
			token := fmt.Sprintf("lease-%d", i)
			ok, err := s.AcquireInFlight(ctx(t), "partner-slow", limit, token, now, now.Add(time.Duration(i+1)*time.Second))
			assert.NoError(t, err)
			if ok {
				mu.Lock()
				won = append(won, token)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	require.Len(t, won, limit, "exactly the limit's leases: %v", won)
	ok, err := s.AcquireInFlight(ctx(t), "partner-slow", limit, "late", now, now.Add(time.Minute))
	require.NoError(t, err)
	assert.False(t, ok, "full")

	require.NoError(t, s.ReleaseInFlight(ctx(t), "partner-slow", won[0]))
	ok, err = s.AcquireInFlight(ctx(t), "partner-slow", limit, "after-release", now, now.Add(time.Minute))
	require.NoError(t, err)
	assert.True(t, ok, "a released place is free")

	ok, err = s.AcquireInFlight(ctx(t), "partner-slow", limit, "while-full", now, now.Add(time.Minute))
	require.NoError(t, err)
	assert.False(t, ok)
	ok, err = s.AcquireInFlight(ctx(t), "partner-slow", limit, "after-expiry", now.Add(9*time.Second), now.Add(time.Minute))
	require.NoError(t, err)
	assert.True(t, ok, "the lease of a relay that died expires")
	eps, err := s.PartnerEndpoints(ctx(t), "partner-slow")
	require.NoError(t, err)
	var tokens []string
	for _, l := range eps["partner-slow"].InFlight {
		tokens = append(tokens, l.Token)
	}
	assert.ElementsMatch(t, []string{"after-release", "after-expiry"}, tokens)
	_, err = s.AcquireInFlight(ctx(t), "partner-slow", 0, "none", now, now)
	assert.Error(t, err)
}

// testSettleThrottled: a throttled attempt gives its attempt back, waits
// for the hold, keeps when the throttling began and logs a throttled
// row; the next answer of any other kind clears throttled_since.
func testSettleThrottled(t *testing.T, open Opener) {
	clock := NewClock()
	s := open(t, store.Config{Now: clock.Now})
	entries := outboxEntries(1, clock.Now(), 0)
	enqueue(t, s, entries)
	id := entries[0].OutboxID
	since, hold := clock.Now(), clock.Now().Add(7*time.Second)
	for round := range 2 {
		e := claimAll(t, s, clock.Now(), 1)[id]
		require.Equal(t, 1, e.Attempts, "round %d: a throttle uses no attempt", round)
		_, err := s.SettleOutbox(ctx(t), store.Settlement{Entry: e, Outcome: status.OutcomeThrottled, NextAttemptAt: hold,
			ThrottledSince: since, Attempt: &store.DeliveryAttempt{At: clock.Now(), StatusCode: 429, Error: "HTTP 429"}})
		require.NoError(t, err)
		got, err := s.GetOutboxEntry(ctx(t), id)
		require.NoError(t, err)
		assert.Equal(t, status.OutboxPending, got.Status)
		assert.Equal(t, 0, got.Attempts)
		assert.Equal(t, hold, got.NextAttemptAt)
		require.NotNil(t, got.ThrottledSince)
		assert.Equal(t, since, *got.ThrottledSince)
		require.Len(t, got.DeliveryLog, round+1)
		assert.Equal(t, status.OutcomeThrottledLog, got.DeliveryLog[round].Outcome)
		clock.Advance(7 * time.Second)
		hold = clock.Now().Add(7 * time.Second)
	}
	e := claimAll(t, s, clock.Now(), 1)[id]
	_, err := s.SettleOutbox(ctx(t), store.Settlement{Entry: e, Outcome: status.OutcomeRetry, NextAttemptAt: clock.Now(),
		Error: "HTTP 500", Attempt: &store.DeliveryAttempt{At: clock.Now(), StatusCode: 500}})
	require.NoError(t, err)
	got, err := s.GetOutboxEntry(ctx(t), id)
	require.NoError(t, err)
	assert.Nil(t, got.ThrottledSince, "another answer ends the throttling")
	assert.Equal(t, status.OutboxFailed, got.DeliveryLog[2].Outcome)
	e = claimAll(t, s, clock.Now(), 1)[id]
	_, err = s.SettleOutbox(ctx(t), store.Settlement{Entry: e, Outcome: status.OutcomeThrottled, NextAttemptAt: hold})
	assert.Error(t, err, "a throttle must say since when")
}
