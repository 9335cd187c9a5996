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

// inbound is partner-a's IN delivery of order-12345's OR_MGMT state st by
// webhook event wh, received at.
func inbound(wh, hash, st string, at time.Time) store.PartnerEvent {
	ev := partnerEvent("partner-a", "order-12345", status.PartnerSuccess, 0, at)
	ev.Created, ev.EntityMetadata.ResilienceAttemptCount = "", nil
	ev.EntityData = store.JSONDoc(fmt.Sprintf(`{"orderId":59734,"orderStatusLatest":%q}`, st))
	ev.WebhookEventID, ev.EntityDataHash, ev.VersionReceivedAt = wh, hash, &at
	return ev
}

// testPartnerDeliveryVersions: seed 000's idempotency key (entity_id +
// event_type, per partner and direction) holds one document per entity
// state; a resend changes nothing, a new state is a new version, an older
// delivery never replaces a newer one, and of concurrent deliveries one
// version wins and the others are judged against it.
func testPartnerDeliveryVersions(t *testing.T, open Opener) {
	clock := NewClock()
	s := open(t, store.Config{Now: clock.Now})
	t0 := clock.Now()
	id := store.PartnerEventID("partner-a", status.DirectionIn, "order-12345", "OR_MGMT")
	steps := []struct {
		name        string
		ev          store.PartnerEvent
		want        string
		wantHolder  string
		wantVersion int
	}{
		{"first delivery", inbound("wh-1", "h-plc", "OR_PLC", t0), store.PartnerEventNew, "wh-1", 1},
		{"the same webhook routed again", inbound("wh-1", "h-plc", "OR_PLC", t0), store.PartnerEventSameDelivery, "wh-1", 1},
		{"a resend under a new id", inbound("wh-2", "h-plc", "OR_PLC", t0.Add(time.Second)), store.PartnerEventResend, "wh-1", 1},
		{"a new state", inbound("wh-3", "h-shp", "OR_SHP", t0.Add(time.Minute)), store.PartnerEventNewVersion, "wh-3", 2},
		{"the first delivery routed again after it", inbound("wh-1", "h-plc", "OR_PLC", t0), store.PartnerEventOlder, "wh-3", 2},
		{"back to an earlier state, later", inbound("wh-4", "h-plc", "OR_PLC", t0.Add(time.Hour)), store.PartnerEventNewVersion, "wh-4", 3},
	}
	for _, st := range steps {
		rc, err := s.ReceivePartnerEvent(ctx(t), st.ev)
		require.NoError(t, err, st.name)
		assert.Equal(t, st.want, rc.Outcome, st.name)
		got, err := s.GetPartnerEvent(ctx(t), id)
		require.NoError(t, err, st.name)
		assert.Equal(t, st.wantHolder, got.WebhookEventID, st.name)
		assert.Equal(t, st.wantVersion, got.EntityVersion, st.name)
		assert.Equal(t, got.WebhookEventID, rc.Event.WebhookEventID, "%s: the receipt shows the document as stored", st.name)
		assert.Equal(t, got.EntityVersion, rc.Event.EntityVersion, st.name)
		assert.JSONEq(t, string(got.EntityData), string(rc.Event.EntityData), st.name)
	}
	history, err := s.PartnerHistory(ctx(t), "partner-a")
	require.NoError(t, err)
	assert.Len(t, history, 1, "one document per entity_id + event_type")

	// Concurrent deliveries of one new state: one version, the rest resends.
	var wg sync.WaitGroup
	outcomes := make([]string, 6)
	for i := range outcomes {
		wg.Go(func() {
			rc, err := s.ReceivePartnerEvent(ctx(t), inbound(fmt.Sprintf("wh-c%d", i), "h-dlv", "OR_DLV", t0.Add(2*time.Hour)))
			assert.NoError(t, err)
			outcomes[i] = rc.Outcome
		})
	}
	wg.Wait()
	count := map[string]int{}
	for _, o := range outcomes {
		count[o]++
	}
	assert.Equal(t, map[string]int{store.PartnerEventNewVersion: 1, store.PartnerEventResend: 5}, count)
	got, err := s.GetPartnerEvent(ctx(t), id)
	require.NoError(t, err)
	assert.Equal(t, 4, got.EntityVersion)

	_, err = s.ReceivePartnerEvent(ctx(t), inbound("", "h", "OR_PLC", t0))
	assert.Error(t, err, "an inbound delivery names its webhook event")
}

// outbound is the OUT delivery of entry e to partner-acme.
func outbound(e store.OutboxEntry) store.PartnerEvent {
	return store.PartnerEvent{
		ID: store.PartnerEventID("partner-acme", status.DirectionOut, e.AggregateID, e.EventType), EventType: e.EventType,
		EventDirection: status.DirectionOut, OutboxID: e.OutboxID, CreatedBy: "outbox-relay", EntityData: e.Payload,
		EntityMetadata: store.PartnerEntityMetadata{PartnerID: "partner-acme", PartnerName: "Acme", EntityID: e.AggregateID, EntityType: e.AggregateType},
	}
}

// testPartnerClaimsLapse: a delivery being sent is PROCESSING, so seed
// 000's "Failed Events for Retry" does not select it; a claim not attempted
// after all goes back; a claim whose relay died lapses with the outbox
// lease and the delivery is selected again; a second entry of the same
// entity and event type takes the document over on its first attempt.
func testPartnerClaimsLapse(t *testing.T, open Opener) {
	clock := NewClock()
	s := open(t, store.Config{Now: clock.Now})
	const lease = time.Minute
	entries := outboxEntries(3, clock.Now(), 0)
	enqueue(t, s, entries)
	claimAll(t, s, clock.Now(), 3)
	claims := make([]store.PartnerClaim, len(entries))
	for i, e := range entries {
		claims[i] = store.PartnerClaim{Event: outbound(e), FirstOfRound: true}
	}
	require.NoError(t, s.ClaimPartnerDeliveries(ctx(t), clock.Now().Add(lease), claims...))
	statusOf := func(e store.OutboxEntry) string {
		t.Helper()
		ev, err := s.PartnerDeliveryOf(ctx(t), e.OutboxID)
		require.NoError(t, err)
		return ev.EventStatus
	}
	retry := func() []string {
		t.Helper()
		evs, err := s.FailedPartnerEventsForRetry(ctx(t), 0)
		require.NoError(t, err)
		var out []string
		for _, ev := range evs {
			out = append(out, ev.OutboxID)
		}
		return out
	}
	for _, e := range entries {
		assert.Equal(t, status.PartnerProcessing, statusOf(e), "claimed: being sent")
	}

	// Attempt 1 of each fails; attempt 2 is claimed for all three.
	for _, e := range entries {
		require.NoError(t, s.RecordPartnerAttempt(ctx(t), outbound(e).ID, 1, clock.Now(), status.PartnerFailed))
	}
	assert.ElementsMatch(t, []string{entries[0].OutboxID, entries[1].OutboxID, entries[2].OutboxID}, retry())
	for i := range claims {
		claims[i].FirstOfRound = false
	}
	require.NoError(t, s.ClaimPartnerDeliveries(ctx(t), clock.Now().Add(lease), claims...))
	assert.Empty(t, retry(), "a delivery in flight is never Failed Events for Retry")

	// Entry 0 is attempted and delivered, entry 1 deferred (released), entry
	// 2's relay dies mid-attempt.
	require.NoError(t, s.RecordPartnerAttempt(ctx(t), outbound(entries[0]).ID, 2, clock.Now(), status.PartnerSuccess))
	require.NoError(t, s.ReleasePartnerClaims(ctx(t), store.PartnerAttempt{ID: outbound(entries[1]).ID, OutboxID: entries[1].OutboxID}))
	assert.Equal(t, status.PartnerSuccess, statusOf(entries[0]))
	assert.Equal(t, status.PartnerFailed, statusOf(entries[1]), "not sent after all: back to FAILED")
	assert.Equal(t, status.PartnerProcessing, statusOf(entries[2]))
	n, err := s.ReleaseExpiredPartnerClaims(ctx(t), clock.Now().Add(lease-time.Millisecond))
	require.NoError(t, err)
	assert.Zero(t, n, "within the lease: still in flight")
	clock.Advance(lease)
	_, err = s.ReclaimExpiredLeases(ctx(t), clock.Now())
	require.NoError(t, err)
	assert.Equal(t, status.PartnerFailed, statusOf(entries[2]), "the lapsed claim comes back with the outbox lease")
	assert.ElementsMatch(t, []string{entries[1].OutboxID, entries[2].OutboxID}, retry())

	// A never-attempted claim that lapses is PENDING again.
	fresh := outboxEntries(1, clock.Now(), 0)
	enqueue(t, s, fresh)
	require.NoError(t, s.ClaimPartnerDeliveries(ctx(t), clock.Now().Add(lease), store.PartnerClaim{Event: outbound(fresh[0]), FirstOfRound: true}))
	clock.Advance(lease)
	n, err = s.ReleaseExpiredPartnerClaims(ctx(t), clock.Now())
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	assert.Equal(t, status.PartnerPending, statusOf(fresh[0]))

	// A second entry of entry 0's workflow and event type: a new version
	// of the delivery, taking the document over at its first attempt;
	// the first entry's later attempts are recorded nowhere.
	second := outboxEntries(1, clock.Now(), 0)[0]
	second.AggregateID, second.EventType = entries[0].AggregateID, entries[0].EventType
	enqueue(t, s, []store.OutboxEntry{second})
	require.NoError(t, s.ClaimPartnerDeliveries(ctx(t), clock.Now().Add(lease), store.PartnerClaim{Event: outbound(second), FirstOfRound: true}))
	ev, err := s.GetPartnerEvent(ctx(t), outbound(second).ID)
	require.NoError(t, err)
	assert.Equal(t, second.OutboxID, ev.OutboxID)
	assert.Equal(t, 2, ev.EntityVersion)
	assert.Equal(t, status.PartnerProcessing, ev.EventStatus)
	assert.Empty(t, ev.EntityMetadata.ResilienceAttemptCount, "the new version's round starts empty")
	require.NoError(t, s.ClaimPartnerDeliveries(ctx(t), clock.Now().Add(lease), store.PartnerClaim{Event: outbound(entries[0])}))
	matched, err := s.RecordPartnerAttempts(ctx(t), store.PartnerAttempt{ID: outbound(entries[0]).ID, OutboxID: entries[0].OutboxID,
		N: 3, At: clock.Now(), Status: status.PartnerFailed})
	require.NoError(t, err)
	assert.Zero(t, matched, "the first entry no longer holds the document")
	ev, err = s.GetPartnerEvent(ctx(t), outbound(second).ID)
	require.NoError(t, err)
	assert.Equal(t, second.OutboxID, ev.OutboxID)
	assert.Equal(t, status.PartnerProcessing, ev.EventStatus)
}
