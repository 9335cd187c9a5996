package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.mongodb.org/mongo-driver/bson"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/status"
	"github.com/streamops/streamops/internal/store"
)

// Opener opens a fresh, empty store with cfg (which carries the test's
// clock) and closes it when the test ends.
type Opener func(tb testing.TB, cfg store.Config) *store.Store

// Clock is the test clock: it starts at a fixed, millisecond-aligned
// instant and moves only when told to, or by a fixed step per reading
// (NewTickingClock), so durations are positive and reproducible.
type Clock struct {
	mu   sync.Mutex
	t    time.Time
	step time.Duration
}

// NewClock starts a clock that moves only with Advance.
func NewClock() *Clock { return NewTickingClock(0) }

// NewTickingClock starts a clock that moves step with every reading.
func NewTickingClock(step time.Duration) *Clock {
	return &Clock{t: time.Date(2026, 1, 4, 1, 9, 27, 123e6, time.UTC), step: step}
}

// Now moves the clock one step (if it ticks) and reads it.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(c.step)
	return c.t
}

// Advance moves the clock forward by d.
func (c *Clock) Advance(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

// Run runs the whole contract suite against the engine open gives.
func Run(t *testing.T, open Opener) {
	tests := []struct {
		name string
		fn   func(*testing.T, Opener)
	}{
		{"EventInsertIsIdempotentAndKeepsTheSeedShape", testEventInsert},
		{"EventBulkInsertReportsDuplicates", testEventBulkInsert},
		{"AConsumedEventKeepsTheFieldsANewerProducerAdded", testConsumedEventKeepsAddedFields},
		{"UserIDNullAbsentOrAStringIsReadBackAsWritten", testUserIDIsReadBackAsWritten},
		{"ConsumedEventsAreStoredPublishedOncePerEventID", testConsumedEventInsert},
		{"ConcurrentDuplicateWritersStoreEachEventOnce", testConcurrentEventDedupe},
		{"ConcurrentWebhookRedeliveriesStoreOneRow", testConcurrentWebhookDedupe},
		{"WebhookLifecycle", testWebhookLifecycle},
		{"UnpublishedEventsAreFoundUntilMarkedPublished", testUnpublished},
		{"APublishLedgerStandsForTheMarksUntilClosedOrReopened", testPublishLedgers},
		{"EightClaimersDrainTheOutboxWithoutDoubleClaims", testConcurrentClaims},
		{"ClaimTakesOnlyDueEntriesOldestFirst", testClaimDueOnly},
		{"ClaimIsSeed004sPollingQuery", testClaimIsSeed004sPollingQuery},
		{"ExpiredLeasesAreReclaimed", testLeaseReclaim},
		{"SettlingRecordsEachOutcome", testSettle},
		{"SettlingAppendsToTheDeliveryLogKeepingTheLatest", testDeliveryLog},
		{"AnOperatorsRequeueStartsANewRoundOfADeadLetterOnly", testRequeue},
		{"PauseAndResumeChangeOnlyWhatTheyMust", testPauseResume},
		{"ABreakerSaveKeepsAPause", testBreakerSaveKeepsPause},
		{"SaveBreakerIsACompareAndSetOnTheOpening", testSaveBreakerIsACompareAndSetOnTheOpening},
		{"ABreakerSaveKeepsTheFailingRun", testABreakerSaveKeepsTheFailingRun},
		{"ClaimsLeaveAPausedOrDisabledPartnersEntriesWaiting", testClaimSkipsBlocked},
		{"PartnerBacklogCountsWhatWaits", testPartnerBacklog},
		{"PartnerFailedForRetryQuery", testPartnerRetryQuery},
		{"PartnerHistoryQuery", testPartnerHistory},
		{"PartnerDeliveriesDeduplicateByEntityIDAndEventType", testPartnerDeliveryVersions},
		{"PartnerDeliveryInFlightIsProcessingUntilItsClaimLapses", testPartnerClaimsLapse},
		{"EveryIndexExistsAndEnsureIsIdempotent", testIndexes},
		{"IndexesAreExactlyAsTheSeedsNameThem", testSeedIndexes},
		{"SearchMatchesTheTextIndexFields", testSearch},
		{"SearchAnswersAsEachEngineIsDocumented", testSearchAnswersAsEachEngineIsDocumented},
		{"PartnerScopeIsOneIndexedFieldWhateverItsDeliveries", testPartnerScope},
		{"CountByCountsEachValueWithinTheWindow", testCountBy},
		{"EventRateCountsEachBucketOfTheWindow", testEventRate},
		{"OpenBreakersAndPartnerIDsListWhatTheStoreKnows", testPartnerOverview},
		{"DocumentsNoEngineCanStoreArePermanentErrorsNamingTheField", testRejectedDocuments},
		{"ExpiredOrCancelledCommandsAreTransientErrors", testTransientErrors},
		{"UpsertRacesMakeOneDocument", testUpsertRace},
		{"NumbersAreStoredAsSent", testNumbersAsSent},
		{"AnAggregatesEventsComeBackInCausalOrder", testCausalOrder},
		{"TTLIndexesDeleteArchivedEventsAndOldWebhookEventsOnly", testTTL},
		{"EveryCollectionExpiresWhatEndedAndKeepsWhatHasNot", testRetention},
		{"AWorkflowKeepsItsNewestReruns", testRerunsAreCapped},
		{"AWebhookRowKeepsItsNewestAttempts", testWebhookAttemptsAreCapped},
		{"SubmissionsAreStoredOncePerID", testSubmissions},
		{"DeadLettersAreStoredOncePerRecordAndListedWhileOpen", testDeadLetters},
		{"WorkflowCheckpointsCreateMissingAndNeverMoveBack", testWorkflowCheckpoints},
		{"TaskOutcomesSettleOnlyTheirAttempt", testTaskOutcomes},
		{"WebhookOutcomesSettleOnlyOpenRows", testWebhookOutcomes},
		{"WebhookEventsToRouteAreRoutingFailuresOnly", testWebhookEventsToRoute},
		{"ANewWebhookAttemptStartsOnlyOnAnEndedRowAsLoaded", testWebhookAttempt},
		{"WorkflowRecordsAreStoredOncePerID", testWorkflowRecords},
		{"ExportReadsOnlyExportableFieldsAsPlainJSON", testExport},
		{"PayloadsSeed004KeepFreeOfPIIAreScrubbedOnInsert", testPayloadsScrubbed},
		{"TwoRelaysNeverGetTheSameSendSlot", testGateSlotsAreNeverShared},
		{"APartnersHoldOnlyMovesLaterAndStartsOnce", testGateHoldOnlyMovesLater},
		{"InFlightLeasesAreTakenOnceEachAndExpire", testGateInFlightLeases},
		{"AThrottleGivesItsAttemptBackAndLogsThrottled", testSettleThrottled},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, open) })
	}
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return c
}

// envelope builds a seed-003 envelope without going through constructors,
// so the store suite depends only on the envelope's shape.
func envelope(typ events.Type, at time.Time, payload map[string]any, meta *events.Metadata) events.Envelope {
	raw, _ := json.Marshal(payload)
	return events.Envelope{
		EventType: typ, EventID: "evt-" + uuid.NewString(), Timestamp: events.At(at),
		SchemaVersion: events.SchemaVersion, Payload: raw, Metadata: meta,
	}
}

func workflowCreated(at time.Time) events.Envelope {
	return envelope(events.WorkflowCreated, at, map[string]any{
		"workflowId": "wf-" + uuid.NewString(), "name": "Data Processing Pipeline",
		"steps": []string{"validate", "transform", "store"}, "priority": "high",
		"createdAt": events.At(at).String(),
	}, &events.Metadata{Source: "api-gateway", UserID: events.String("user-7"), APIVersion: "1.0.0", CorrelationID: "corr-1", PartnerID: "partner-a"})
}

func taskCreated(at time.Time) events.Envelope {
	return envelope(events.TaskCreated, at, map[string]any{
		"taskId": "task-" + uuid.NewString(), "type": "email_notification",
		"data": map[string]any{"template": "welcome_email"}, "retryCount": 0, "maxRetries": 3,
		"createdAt": events.At(at).String(),
	}, &events.Metadata{Source: "event-processor"})
}

func testEventInsert(t *testing.T, open Opener) {
	clock := NewClock()
	s := open(t, store.Config{Now: clock.Now})
	env := workflowCreated(clock.Now().Add(-time.Second))

	require.NoError(t, s.InsertEvent(ctx(t), env))
	err := s.InsertEvent(ctx(t), env)
	require.ErrorIs(t, err, store.ErrDuplicate, "a second insert of the same eventId is a duplicate")

	doc, err := s.GetEvent(ctx(t), env.EventID)
	require.NoError(t, err)
	assert.Equal(t, env.EventID, doc.EventID)
	assert.Equal(t, "workflow.created", doc.EventType)
	assert.Equal(t, env.AggregateID(), doc.AggregateID, "aggregate_id is the workflowId")
	assert.Equal(t, "api-gateway", doc.Metadata.ServiceName, "metadata.source is stored as metadata.service_name")
	assert.Equal(t, "user-7", doc.Metadata.UserID.Value)
	assert.Equal(t, "corr-1", doc.ExecutionID)

	byID, err := s.GetEvents(ctx(t), []string{env.EventID, "evt-missing"})
	require.NoError(t, err)
	require.Len(t, byID, 1, "an id not stored is absent")
	assert.Equal(t, doc, byID[env.EventID])
	assert.Equal(t, clock.Now(), doc.StoredAt)
	assert.Nil(t, doc.TTLExpiresAt, "no ttl_expires_at until the event is archived (90 days by default)")
	assert.Equal(t, "high", doc.Payload["priority"], "payload fields are stored at the top level")
	assert.True(t, doc.PublishPending)

	back, err := doc.Envelope()
	require.NoError(t, err)
	assert.JSONEq(t, string(env.Payload), string(back.Payload))
	assert.Equal(t, env.Timestamp.String(), back.Timestamp.String())
	assert.Equal(t, env.EventType, back.EventType)
	assert.Equal(t, *env.Metadata, *back.Metadata)
}

// testConsumedEventKeepsAddedFields: an event a newer 1.x producer wrote,
// with fields this version does not name in its envelope, metadata and
// payload, comes back from the events collection (what a replay or a
// requeue re-publishes) with every one of them.
func testConsumedEventKeepsAddedFields(t *testing.T, open Opener) {
	s := open(t, store.Config{Now: NewClock().Now})
	raw := `{"eventType":"workflow.created","eventId":"test-1","timestamp":"2026-01-04T01:00:00.000Z","schemaVersion":"1.4.0",` +
		`"payload":{"workflowId":"wf-test","name":"Test","steps":["step1"],"priority":"low","createdAt":"2026-01-04T01:00:00.000Z","labels":["a"]},` +
		`"metadata":{"source":"partner-gateway","tenant":{"id":"acme","tier":2}},"traceparent":"00-abc-01","attempt":3}`
	env, err := events.Consumed.Decode([]byte(raw))
	require.NoError(t, err)

	require.NoError(t, s.InsertEvent(ctx(t), env))
	doc, err := s.GetEvent(ctx(t), "test-1")
	require.NoError(t, err)
	back, err := doc.Envelope()
	require.NoError(t, err)
	again, err := json.Marshal(back)
	require.NoError(t, err)
	assert.JSONEq(t, raw, string(again))
}

// testConsumedEventInsert: an event a processor read from its topic is
// stored with every field (those whose names are the document's own
// included), published already so the retry-sweeper never publishes it
// again, once per eventId: a second insert, or one of an event StreamOps
// stored itself (still pending), is a duplicate that changes nothing.
func testConsumedEventInsert(t *testing.T, open Opener) {
	clock := NewClock()
	s := open(t, store.Config{Now: clock.Now})
	raw := `{"eventType":"task.created","eventId":"evt-kcat-1","timestamp":"2026-01-04T01:00:00.000Z","schemaVersion":"1.0.0",` +
		`"payload":{"taskId":"task-kcat-1","type":"sms","data":{},"retryCount":0,"maxRetries":3,"createdAt":"2026-01-04T01:00:00.000Z",` +
		`"timestamp":"yesterday","metadata":{"owner":"ops"},"seq":7,"_id":"mine","event_type":"x","payload_reserved":true},` +
		`"metadata":{"source":"kcat","tenant":"acme"},"traceparent":"00-abc-01"}`
	env, err := events.Consumed.Decode([]byte(raw))
	require.NoError(t, err)
	own := taskCreated(clock.Now())
	_, err = s.InsertEvents(ctx(t), []events.Envelope{own})
	require.NoError(t, err)

	res, err := s.InsertConsumedEvents(ctx(t), []events.Envelope{env, own})
	require.NoError(t, err)
	assert.Equal(t, []string{"evt-kcat-1"}, res.Inserted)
	assert.Equal(t, []string{own.EventID}, res.Duplicates, "StreamOps stored it already")
	res, err = s.InsertConsumedEvents(ctx(t), []events.Envelope{env})
	require.NoError(t, err, "a redelivered batch stores it again: a duplicate")
	assert.Equal(t, []string{"evt-kcat-1"}, res.Duplicates)

	doc, err := s.GetEvent(ctx(t), "evt-kcat-1")
	require.NoError(t, err)
	assert.False(t, doc.PublishPending)
	require.NotNil(t, doc.PublishedAt)
	assert.Equal(t, clock.Now(), *doc.PublishedAt)
	assert.Equal(t, "task-kcat-1", doc.AggregateID)
	assert.Equal(t, "kcat", doc.Metadata.ServiceName)
	back, err := doc.Envelope()
	require.NoError(t, err)
	again, err := json.Marshal(back)
	require.NoError(t, err)
	assert.JSONEq(t, raw, string(again))

	mine, err := s.GetEvent(ctx(t), own.EventID)
	require.NoError(t, err)
	assert.True(t, mine.PublishPending, "StreamOps' own event is still the sweeper's to publish")
	pending, err := s.UnpublishedEvents(ctx(t), clock.Now().Add(time.Hour), 10)
	require.NoError(t, err)
	require.Len(t, pending, 1)
	assert.Equal(t, own.EventID, pending[0].EventID)
}

func testEventBulkInsert(t *testing.T, open Opener) {
	clock := NewClock()
	s := open(t, store.Config{Now: clock.Now})
	first := []events.Envelope{workflowCreated(clock.Now()), taskCreated(clock.Now())}
	res, err := s.InsertEvents(ctx(t), first)
	require.NoError(t, err)
	assert.Len(t, res.Inserted, 2)

	batch := append([]events.Envelope{workflowCreated(clock.Now())}, first...)
	batch = append(batch, taskCreated(clock.Now()))
	res, err = s.InsertEvents(ctx(t), batch)
	require.NoError(t, err, "duplicates in a bulk insert are not an error")
	assert.ElementsMatch(t, []string{first[0].EventID, first[1].EventID}, res.Duplicates)
	assert.ElementsMatch(t, []string{batch[0].EventID, batch[3].EventID}, res.Inserted,
		"an unordered insert stores the new events after a duplicate")
	for _, env := range batch {
		_, err := s.GetEvent(ctx(t), env.EventID)
		assert.NoError(t, err)
	}
}

func testConcurrentEventDedupe(t *testing.T, open Opener) {
	clock := NewClock()
	s := open(t, store.Config{Now: clock.Now})
	const writers, n = 8, 40
	envs := make([]events.Envelope, n)
	for i := range envs {
		envs[i] = taskCreated(clock.Now())
	}
	var mu sync.Mutex
	won := map[string]int{}
	var wg sync.WaitGroup
	for range writers {
		wg.Go(func() {
			for _, env := range envs {
				err := s.InsertEvent(context.Background(), env)
				if errors.Is(err, store.ErrDuplicate) {
					continue
				}
				if !assert.NoError(t, err) {
					return
				}
				mu.Lock()
				won[env.EventID]++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	require.Len(t, won, n, "every event stored")
	for id, c := range won {
		assert.Equal(t, 1, c, "event %s stored by exactly one writer", id)
	}
	docs, err := s.UnpublishedEvents(ctx(t), clock.Now(), 10*n)
	require.NoError(t, err)
	assert.Len(t, docs, n, "no twins in the collection")
}

func testConcurrentWebhookDedupe(t *testing.T, open Opener) {
	s := open(t, store.Config{Now: NewClock().Now})
	const writers, n = 8, 40
	var mu sync.Mutex
	fresh := map[string]int{}
	ids := map[string]map[string]bool{}
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range n {
				pid := fmt.Sprintf("evt_%03d", i)
				got, err := s.InsertWebhookEvent(context.Background(), store.WebhookEvent{
					Provider: "stripe", ProviderEventID: pid, EventType: "invoice.finalized",
					Payload: store.JSONDoc(fmt.Sprintf(`{"id":%q,"writer":%d}`, pid, w)),
				})
				if err != nil && !errors.Is(err, store.ErrDuplicate) {
					assert.NoError(t, err)
					return
				}
				mu.Lock()
				if err == nil {
					fresh[pid]++
				}
				if ids[pid] == nil {
					ids[pid] = map[string]bool{}
				}
				ids[pid][got.EventID] = true
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	require.Len(t, fresh, n)
	for pid, c := range fresh {
		assert.Equal(t, 1, c, "%s accepted once", pid)
		assert.Len(t, ids[pid], 1, "%s: every delivery sees the same webhook event id", pid)
		assert.True(t, ids[pid][store.WebhookEventID("stripe", pid)])
	}
}

func testWebhookLifecycle(t *testing.T, open Opener) {
	clock := NewClock()
	s := open(t, store.Config{Now: clock.Now})
	in := store.WebhookEvent{Provider: "github", ProviderEventID: "d-1", EventType: "push",
		Payload: store.JSONDoc(`{"ref":"refs/heads/main","commits":[{"id":"abc","added":2}],"size":1.5,"big":9007199254740993}`)}
	stored, err := s.InsertWebhookEvent(ctx(t), in)
	require.NoError(t, err)
	assert.Equal(t, status.WebhookReceived, stored.Status)
	assert.Equal(t, store.WebhookEventID("github", "d-1"), stored.EventID)
	// Under a test clock Configure keeps rows for a century (the clock is
	// in the past); the default retention is seen on a store without one.
	real := open(t, store.Config{})
	receivedAt := time.Now().UTC().Truncate(time.Millisecond)
	fresh, err := real.InsertWebhookEvent(ctx(t), store.WebhookEvent{Provider: "github", ProviderEventID: "d-default", EventType: "push",
		ReceivedAt: receivedAt, Payload: store.JSONDoc(`{}`)})
	require.NoError(t, err)
	assert.Equal(t, receivedAt.Add(90*24*time.Hour), fresh.ExpireAt, "expire_at: received_at + 90 days by default")
	assert.True(t, stored.ExpireAt.After(clock.Now().Add(90*24*time.Hour)), "kept past the default under a test clock")

	dup, err := s.InsertWebhookEvent(ctx(t), store.WebhookEvent{Provider: "github", ProviderEventID: "d-1", EventType: "push",
		Payload: store.JSONDoc(`{"changed":true}`)})
	require.ErrorIs(t, err, store.ErrDuplicate)
	assert.Equal(t, stored.EventID, dup.EventID)
	assert.JSONEq(t, string(in.Payload), string(dup.Payload), "the duplicate changed nothing")

	clock.Advance(time.Second)
	require.NoError(t, s.SetWebhookStatus(ctx(t), stored.EventID, status.WebhookProcessing, ""))
	require.NoError(t, s.SetWebhookStatus(ctx(t), stored.EventID, status.WebhookFailed, "step transform failed"))
	got, err := s.GetWebhookEvent(ctx(t), stored.EventID)
	require.NoError(t, err)
	assert.Equal(t, status.WebhookFailed, got.Status)
	assert.Equal(t, 1, got.RetryCount)
	assert.Equal(t, "step transform failed", got.ErrorMessage)
	require.NotNil(t, got.ProcessingStartedAt)
	assert.Equal(t, clock.Now(), *got.ProcessingStartedAt)

	require.NoError(t, s.SetWebhookStatus(ctx(t), stored.EventID, status.WebhookProcessing, ""))
	require.NoError(t, s.SetWebhookStatus(ctx(t), stored.EventID, status.WebhookCompleted, ""))
	got, err = s.GetWebhookEvent(ctx(t), stored.EventID)
	require.NoError(t, err)
	assert.Equal(t, status.WebhookCompleted, got.Status)
	assert.Equal(t, 2, got.RetryCount)
	assert.Empty(t, got.ErrorMessage)
	assert.NotNil(t, got.CompletedAt)

	require.NoError(t, s.SetWebhookStatus(ctx(t), stored.EventID, status.WebhookProcessing, ""), "a late transition is a no-op")
	got, err = s.GetWebhookEvent(ctx(t), stored.EventID)
	require.NoError(t, err)
	assert.Equal(t, status.WebhookCompleted, got.Status, "a completed row never moves back to processing")
	assert.Equal(t, 2, got.RetryCount)

	assert.ErrorIs(t, s.SetWebhookStatus(ctx(t), "nope", status.WebhookCompleted, ""), store.ErrNotFound)
	_, err = s.GetWebhookEvent(ctx(t), "nope")
	assert.ErrorIs(t, err, store.ErrNotFound)
}

func testUnpublished(t *testing.T, open Opener) {
	clock := NewClock()
	s := open(t, store.Config{Now: clock.Now})
	old := workflowCreated(clock.Now())
	history := envelope(events.WebhookReceived, clock.Now(), map[string]any{
		"provider": "stripe", "providerEventId": "evt_1", "eventType": "invoice.paid", "webhookEventId": uuid.NewString(),
	}, nil)
	_, err := s.InsertEvents(ctx(t), []events.Envelope{old, history})
	require.NoError(t, err)
	clock.Advance(time.Minute)
	recent := taskCreated(clock.Now())
	require.NoError(t, s.InsertEvent(ctx(t), recent))

	docs, err := s.UnpublishedEvents(ctx(t), clock.Now().Add(-30*time.Second), 10)
	require.NoError(t, err)
	require.Len(t, docs, 1, "only the event stored over 30 s ago; webhook.received is history only")
	assert.Equal(t, old.EventID, docs[0].EventID)

	require.NoError(t, s.MarkPublished(ctx(t), old.EventID, recent.EventID))
	docs, err = s.UnpublishedEvents(ctx(t), clock.Now().Add(time.Hour), 10)
	require.NoError(t, err)
	assert.Empty(t, docs)
	doc, err := s.GetEvent(ctx(t), old.EventID)
	require.NoError(t, err)
	require.NotNil(t, doc.PublishedAt)
	assert.Equal(t, clock.Now(), *doc.PublishedAt)
}

func outboxEntries(n int, start time.Time, step time.Duration) []store.OutboxEntry {
	entries := make([]store.OutboxEntry, n)
	for i := range entries {
		src := "evt-" + uuid.NewString()
		entries[i] = store.OutboxEntry{
			OutboxID: store.OutboxID(src, "partner-acme"), AggregateType: "workflow", AggregateID: "wf-" + uuid.NewString(),
			EventType: "workflow.completed", TargetProvider: "partner-acme",
			Payload:       store.JSONDoc(fmt.Sprintf(`{"sourceEventId":%q,"n":%d}`, src, i)),
			NextAttemptAt: start.Add(time.Duration(i) * step),
		}
	}
	return entries
}

func enqueue(t *testing.T, s *store.Store, entries []store.OutboxEntry) {
	t.Helper()
	for i := 0; i < len(entries); i += 250 {
		res, err := s.EnqueueOutbox(ctx(t), entries[i:min(i+250, len(entries))]...)
		require.NoError(t, err)
		require.Empty(t, res.Duplicates)
	}
}

// claimAll claims the due entries at now, requires that there are want of
// them, and returns them by outbox id.
func claimAll(t *testing.T, s *store.Store, now time.Time, want int) map[string]store.OutboxEntry {
	t.Helper()
	claimed, err := s.ClaimDue(ctx(t), now, time.Minute, 10)
	require.NoError(t, err)
	require.Len(t, claimed, want)
	byID := map[string]store.OutboxEntry{}
	for _, e := range claimed {
		byID[e.OutboxID] = e
	}
	return byID
}

func testConcurrentClaims(t *testing.T, open Opener) {
	clock := NewClock()
	s := open(t, store.Config{Now: clock.Now})
	const total, claimers, batch = 1000, 8, 25
	// Enqueued newest first, so claim order comes from next_attempt_at and
	// not from insertion order.
	entries := outboxEntries(total, clock.Now().Add(-time.Hour), -time.Second)
	enqueue(t, s, entries)

	var mu sync.Mutex
	claims := map[string]int{}
	var wg sync.WaitGroup
	for range claimers {
		wg.Go(func() {
			var last time.Time
			for {
				got, err := s.ClaimDue(context.Background(), clock.Now(), time.Minute, batch)
				if !assert.NoError(t, err) || len(got) == 0 {
					return
				}
				assert.LessOrEqual(t, len(got), batch)
				for _, e := range got {
					assert.False(t, e.NextAttemptAt.Before(last), "each claimer sees entries in next_attempt_at order")
					last = e.NextAttemptAt
					assert.Equal(t, status.OutboxProcessing, e.Status)
					assert.Equal(t, 1, e.Attempts)
					require.NotNil(t, e.LeaseExpiresAt)
					assert.Equal(t, clock.Now().Add(time.Minute), *e.LeaseExpiresAt)
				}
				mu.Lock()
				for _, e := range got {
					claims[e.OutboxID]++
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	assert.Len(t, claims, total, "every due entry claimed")
	doubles := 0
	for _, c := range claims {
		if c > 1 {
			doubles++
		}
	}
	assert.Zero(t, doubles, "no entry claimed twice")
}

func testClaimDueOnly(t *testing.T, open Opener) {
	clock := NewClock()
	s := open(t, store.Config{Now: clock.Now})
	_, ok, err := s.NextDueOutbox(ctx(t))
	require.NoError(t, err)
	assert.False(t, ok, "nothing waits in an empty outbox")
	entries := outboxEntries(6, clock.Now().Add(-3*time.Second), time.Second) // -3s … +2s
	enqueue(t, s, entries)

	got, err := s.ClaimDue(ctx(t), clock.Now(), time.Minute, 10)
	require.NoError(t, err)
	ids := make([]string, len(got))
	for i, e := range got {
		ids[i] = e.OutboxID
	}
	assert.Equal(t, []string{entries[0].OutboxID, entries[1].OutboxID, entries[2].OutboxID, entries[3].OutboxID}, ids,
		"only entries with next_attempt_at <= now, oldest first")
	again, err := s.ClaimDue(ctx(t), clock.Now(), time.Minute, 10)
	require.NoError(t, err)
	assert.Empty(t, again, "claimed entries are not due while leased")
	next, ok, err := s.NextDueOutbox(ctx(t))
	require.NoError(t, err)
	require.True(t, ok)
	assert.True(t, entries[4].NextAttemptAt.Equal(next), "the earliest waiting entry, claimed ones left out: got %s", next)

	_, err = s.ClaimDue(ctx(t), clock.Now(), time.Minute, 0)
	assert.Error(t, err)
}

func testLeaseReclaim(t *testing.T, open Opener) {
	clock := NewClock()
	s := open(t, store.Config{Now: clock.Now})
	enqueue(t, s, outboxEntries(3, clock.Now(), 0))
	first, err := s.ClaimDue(ctx(t), clock.Now(), time.Minute, 10)
	require.NoError(t, err)
	require.Len(t, first, 3)

	n, err := s.ReclaimExpiredLeases(ctx(t), clock.Now().Add(30*time.Second))
	require.NoError(t, err)
	assert.Zero(t, n, "a live lease is not reclaimed")

	clock.Advance(2 * time.Minute) // the relay died holding the lease
	n, err = s.ReclaimExpiredLeases(ctx(t), clock.Now())
	require.NoError(t, err)
	assert.Equal(t, 3, n)

	second, err := s.ClaimDue(ctx(t), clock.Now(), time.Minute, 10)
	require.NoError(t, err)
	require.Len(t, second, 3, "reclaimed entries are claimable again")
	for i, e := range second {
		assert.Equal(t, 2, e.Attempts, "the interrupted attempt stays counted")
		assert.Equal(t, first[i].OutboxID, e.OutboxID, "same outbox id, so the partner can dedupe")
		assert.NotEqual(t, first[i].ClaimToken, e.ClaimToken)
	}
	err = s.MarkCompleted(ctx(t), first[0])
	assert.ErrorIs(t, err, store.ErrLeaseLost, "the dead relay's stale claim cannot settle")
	require.NoError(t, s.MarkCompleted(ctx(t), second[0]))
	got, err := s.GetOutboxEntry(ctx(t), second[0].OutboxID)
	require.NoError(t, err)
	assert.Equal(t, status.OutboxCompleted, got.Status)
}

func testSettle(t *testing.T, open Opener) {
	clock := NewClock()
	s := open(t, store.Config{Now: clock.Now})
	entries := outboxEntries(4, clock.Now(), 0)
	entries[3].MaxAttempts = 1
	enqueue(t, s, entries)
	res, err := s.EnqueueOutbox(ctx(t), entries[0])
	require.NoError(t, err)
	assert.Equal(t, []string{entries[0].OutboxID}, res.Duplicates, "enqueueing the same outbox id twice is a duplicate")

	byID := claimAll(t, s, clock.Now(), 4)
	retryAt := clock.Now().Add(10 * time.Second)
	n, err := s.SettleOutbox(ctx(t),
		store.Settlement{Entry: byID[entries[0].OutboxID], Outcome: status.OutcomeDelivered},
		store.Settlement{Entry: byID[entries[1].OutboxID], Outcome: status.OutcomeRetry, NextAttemptAt: retryAt, Error: "HTTP 503"},
		store.Settlement{Entry: byID[entries[2].OutboxID], Outcome: status.OutcomeDeadLettered, Error: "HTTP 410"},
		store.Settlement{Entry: byID[entries[3].OutboxID], Outcome: status.OutcomeRetry, NextAttemptAt: retryAt, Error: "HTTP 500"},
	)
	require.NoError(t, err)
	assert.Equal(t, 4, n, "one bulk write settles the batch")

	want := []struct {
		status, lastError string
	}{
		{status.OutboxCompleted, ""},
		{status.OutboxFailed, "HTTP 503"},
		{status.OutboxDeadLetter, "HTTP 410"},
		{status.OutboxDeadLetter, "HTTP 500"}, // max_attempts 1: a retry is a dead letter
	}
	for i, w := range want {
		got, err := s.GetOutboxEntry(ctx(t), entries[i].OutboxID)
		require.NoError(t, err)
		assert.Equal(t, w.status, got.Status, "entry %d", i)
		assert.Equal(t, w.lastError, got.LastError, "entry %d", i)
		assert.Nil(t, got.LeaseExpiresAt, "entry %d: lease released", i)
	}
	got, _ := s.GetOutboxEntry(ctx(t), entries[0].OutboxID)
	require.NotNil(t, got.CompletedAt)
	assert.Equal(t, clock.Now(), *got.CompletedAt)

	none, err := s.ClaimDue(ctx(t), clock.Now(), time.Minute, 10)
	require.NoError(t, err)
	assert.Empty(t, none, "a failed entry waits for its next_attempt_at")
	clock.Advance(10 * time.Second)
	again, err := s.ClaimDue(ctx(t), clock.Now(), time.Minute, 10)
	require.NoError(t, err)
	require.Len(t, again, 1)
	assert.Equal(t, entries[1].OutboxID, again[0].OutboxID)
	assert.Equal(t, 2, again[0].Attempts)
	require.NoError(t, s.MarkFailed(ctx(t), again[0], clock.Now(), "HTTP 502"))
	again, err = s.ClaimDue(ctx(t), clock.Now(), time.Minute, 10)
	require.NoError(t, err)
	require.Len(t, again, 1)
	require.NoError(t, s.DeadLetter(ctx(t), again[0], "gave up"))
	got, _ = s.GetOutboxEntry(ctx(t), entries[1].OutboxID)
	assert.Equal(t, status.OutboxDeadLetter, got.Status)
	assert.Equal(t, 3, got.Attempts)
}

// testDeliveryLog: each settlement with an attempt appends one row to the
// entry's delivery log in the settling update, its outcome the status
// the settlement left; only the latest store.MaxDeliveryLog are kept; an
// operator's requeue keeps the log and the trace.
func testDeliveryLog(t *testing.T, open Opener) {
	clock := NewClock()
	s := open(t, store.Config{Now: clock.Now})
	const tp = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	e := outboxEntries(1, clock.Now(), 0)[0]
	e.MaxAttempts, e.TraceParent, e.TraceID = store.MaxDeliveryLog+10, tp, tp[3:35]
	enqueue(t, s, []store.OutboxEntry{e})
	rounds := store.MaxDeliveryLog + 3
	for i := 1; i <= rounds; i++ {
		claimed := claimAll(t, s, clock.Now(), 1)[e.OutboxID]
		assert.Empty(t, claimed.DeliveryLog, "a claim does not read the log")
		st := store.Settlement{Entry: claimed, Outcome: status.OutcomeRetry, NextAttemptAt: clock.Now(), Error: "HTTP 500",
			Attempt: &store.DeliveryAttempt{At: clock.Now(), DurationMs: int64(i), StatusCode: 500, Error: "HTTP 500", SpanID: fmt.Sprintf("%016x", i)}}
		if i == rounds {
			st = store.Settlement{Entry: claimed, Outcome: status.OutcomeDeadLettered, Error: "gave up",
				Attempt: &store.DeliveryAttempt{At: clock.Now(), DurationMs: int64(i), Error: "timeout", SpanID: fmt.Sprintf("%016x", i)}}
		}
		n, err := s.SettleOutbox(ctx(t), st)
		require.NoError(t, err)
		require.Equal(t, 1, n)
		clock.Advance(time.Second)
	}
	got, err := s.GetOutboxEntry(ctx(t), e.OutboxID)
	require.NoError(t, err)
	require.Len(t, got.DeliveryLog, store.MaxDeliveryLog, "the latest are kept")
	for j, a := range got.DeliveryLog {
		i := rounds - store.MaxDeliveryLog + 1 + j // oldest first
		assert.Equal(t, int64(i), a.DurationMs, "row %d", j)
		assert.Equal(t, fmt.Sprintf("%016x", i), a.SpanID, "row %d", j)
		if i == rounds {
			assert.Equal(t, status.OutboxDeadLetter, a.Outcome)
			assert.Equal(t, 0, a.StatusCode)
			assert.Equal(t, "timeout", a.Error)
		} else {
			assert.Equal(t, status.OutboxFailed, a.Outcome, "row %d", j)
			assert.Equal(t, 500, a.StatusCode, "row %d", j)
		}
	}
	requeued, err := s.RequeueOutboxEntry(ctx(t), e.OutboxID, "op")
	require.NoError(t, err)
	assert.Equal(t, got.DeliveryLog, requeued.DeliveryLog, "a requeue keeps the log")
	assert.Equal(t, tp, requeued.TraceParent, "and the trace")
	assert.Equal(t, tp[3:35], requeued.TraceID)
}

func partnerEvent(partner, entity, eventStatus string, attempts int, created time.Time) store.PartnerEvent {
	counts := map[string]string{}
	for i := 1; i <= attempts; i++ {
		counts[fmt.Sprint(i)] = fmt.Sprint(created.UnixMilli() + int64(i)*1000)
	}
	return store.PartnerEvent{
		EventType: "OR_MGMT", EventStatus: eventStatus, EventDirection: status.DirectionIn,
		Created: fmt.Sprint(created.UnixMilli()), CreatedBy: "624acf127ad1c76470951dff",
		EntityMetadata: store.PartnerEntityMetadata{PartnerID: partner, PartnerName: "ExamplePartner",
			EntityID: entity, EntityType: "Order", ResilienceAttemptCount: counts},
		EntityData: store.JSONDoc(`{"orderId":59734,"orderStatusLatest":"OR_PLC"}`),
	}
}

func testPartnerRetryQuery(t *testing.T, open Opener) {
	clock := NewClock()
	s := open(t, store.Config{Now: clock.Now})
	at := clock.Now()
	cases := []struct {
		entity, status string
		attempts       int
		retry          bool
	}{
		{"order-1", status.PartnerFailed, 3, true},
		{"order-2", status.PartnerFailed, 5, false},
		{"order-3", status.PartnerFailed, 0, true},
		{"order-4", status.PartnerSuccess, 2, false},
		{"order-5", status.PartnerPending, 0, false},
	}
	var want []string
	for _, c := range cases {
		ev, err := s.InsertPartnerEvent(ctx(t), partnerEvent("6231cfc8800d284c981b3146", c.entity, c.status, c.attempts, at))
		require.NoError(t, err)
		if c.retry {
			want = append(want, ev.ID)
		}
	}
	_, err := s.InsertPartnerEvent(ctx(t), partnerEvent("6231cfc8800d284c981b3146", "order-1", status.PartnerFailed, 0, at))
	assert.ErrorIs(t, err, store.ErrDuplicate, "entity_id + event_type is the idempotency key")

	got, err := s.FailedPartnerEventsForRetry(ctx(t), 0)
	require.NoError(t, err)
	ids := make([]string, len(got))
	for i, ev := range got {
		ids[i] = ev.ID
	}
	assert.ElementsMatch(t, want, ids, "FAILED without a fifth attempt")

	// Attempts recorded one by one reach the cap and leave the retry set.
	id := want[1]
	for n := 1; n <= store.MaxPartnerAttempts; n++ {
		require.NoError(t, s.RecordPartnerAttempt(ctx(t), id, n, at.Add(time.Duration(n)*time.Second), status.PartnerFailed))
	}
	assert.Error(t, s.RecordPartnerAttempt(ctx(t), id, store.MaxPartnerAttempts+1, at, status.PartnerFailed), "attempts are capped at 5")
	ev, err := s.GetPartnerEvent(ctx(t), id)
	require.NoError(t, err)
	assert.Len(t, ev.EntityMetadata.ResilienceAttemptCount, 5)
	assert.Equal(t, fmt.Sprint(at.Add(5*time.Second).UnixMilli()), ev.EntityMetadata.ResilienceAttemptCount["5"])
	got, err = s.FailedPartnerEventsForRetry(ctx(t), 0)
	require.NoError(t, err)
	require.Len(t, got, 1)
	assert.Equal(t, want[0], got[0].ID)
	assert.JSONEq(t, `{"orderId":59734,"orderStatusLatest":"OR_PLC"}`, string(got[0].EntityData))

	// What the retry-sweeper reconciles: failed OUT deliveries the query
	// selects whose outbox entry is over take its final status; those
	// whose entry is still scheduled, IN ones and capped ones are left as
	// they are. No outbox entry changes.
	entries := outboxEntries(4, at, 0)
	enqueue(t, s, entries)
	byID := claimAll(t, s, at, 4)
	require.NoError(t, s.DeadLetter(ctx(t), byID[entries[0].OutboxID], "HTTP 410"))
	require.NoError(t, s.MarkCompleted(ctx(t), byID[entries[1].OutboxID]))
	require.NoError(t, s.MarkFailed(ctx(t), byID[entries[2].OutboxID], at.Add(5*time.Second), "HTTP 500"))
	require.NoError(t, s.DeadLetter(ctx(t), byID[entries[3].OutboxID], "HTTP 500"))
	for _, c := range []struct {
		entity, outboxID, want string
		attempts               int
	}{
		{"order-6", entries[0].OutboxID, status.PartnerDeadLetter, 1}, // dead letter: never selected again
		{"order-7", entries[1].OutboxID, status.PartnerSuccess, 1},    // delivered, the attempt's record lost
		{"order-8", entries[2].OutboxID, status.PartnerFailed, 1},     // retry scheduled: the relay's
		{"order-9", entries[3].OutboxID, status.PartnerFailed, 5},     // capped: the query leaves it
		{"order-10", "", status.PartnerFailed, 1},                     // no outbox entry
	} {
		ev := partnerEvent("6231cfc8800d284c981b3146", c.entity, status.PartnerFailed, c.attempts, at)
		ev.EventDirection, ev.OutboxID = status.DirectionOut, c.outboxID
		stored, err := s.InsertPartnerEvent(ctx(t), ev)
		require.NoError(t, err)
		defer func() {
			got, err := s.GetPartnerEvent(ctx(t), stored.ID)
			require.NoError(t, err)
			assert.Equal(t, c.want, got.EventStatus, c.entity)
		}()
	}
	n, err := s.ReconcilePartnerDeliveries(ctx(t), 0)
	require.NoError(t, err)
	assert.Equal(t, 2, n, "the dead letter and the delivered one")
	n, err = s.ReconcilePartnerDeliveries(ctx(t), 0)
	require.NoError(t, err)
	assert.Zero(t, n, "repaired once")
	for i, want := range []string{status.OutboxDeadLetter, status.OutboxCompleted, status.OutboxFailed, status.OutboxDeadLetter} {
		e, err := s.GetOutboxEntry(ctx(t), entries[i].OutboxID)
		require.NoError(t, err)
		assert.Equal(t, want, e.Status, "the outbox is never touched: a dead letter stays one")
	}
}

func testPartnerHistory(t *testing.T, open Opener) {
	clock := NewClock()
	s := open(t, store.Config{Now: clock.Now})
	const mine = 105
	for i := range mine {
		_, err := s.InsertPartnerEvent(ctx(t), partnerEvent("partner-a", fmt.Sprintf("order-%d", i), status.PartnerSuccess, 1,
			clock.Now().Add(time.Duration(i)*time.Second)))
		require.NoError(t, err)
	}
	for i := range 5 {
		_, err := s.InsertPartnerEvent(ctx(t), partnerEvent("partner-b", fmt.Sprintf("order-%d", i), status.PartnerSuccess, 1,
			clock.Now().Add(time.Hour)))
		require.NoError(t, err)
	}
	got, err := s.PartnerHistory(ctx(t), "partner-a")
	require.NoError(t, err)
	require.Len(t, got, store.PartnerHistoryLimit)
	assert.True(t, sort.SliceIsSorted(got, func(i, j int) bool { return got[i].Created > got[j].Created }), "newest first")
	assert.Equal(t, "order-104", got[0].EntityMetadata.EntityID)
	for _, ev := range got {
		assert.Equal(t, "partner-a", ev.EntityMetadata.PartnerID)
	}
}

func testIndexes(t *testing.T, open Opener) {
	s := open(t, store.Config{})
	require.NoError(t, s.EnsureIndexes(ctx(t)), "EnsureIndexes is idempotent")
	byColl := map[string]map[string]store.IndexInfo{}
	for _, spec := range store.Indexes {
		if byColl[spec.Collection] == nil {
			list, err := s.ListIndexes(ctx(t), spec.Collection)
			require.NoError(t, err)
			byColl[spec.Collection] = map[string]store.IndexInfo{}
			for _, ix := range list {
				byColl[spec.Collection][ix.Name] = ix
			}
		}
		got, ok := byColl[spec.Collection][spec.Name]
		if !s.Supported(spec) {
			assert.False(t, ok, "%s.%s is not built on %s", spec.Collection, spec.Name, s.Engine())
			continue
		}
		if !assert.True(t, ok, "index %s.%s exists", spec.Collection, spec.Name) {
			continue
		}
		assert.Equal(t, spec.Unique, got.Unique, "%s.%s unique", spec.Collection, spec.Name)
		if !spec.Text { // MongoDB reports a text index by its internal _fts key
			assert.Equal(t, fmt.Sprint(spec.Keys), fmt.Sprint(normaliseKeys(got.Key)), "%s.%s keys", spec.Collection, spec.Name)
		}
	}
	// Behaviour, not just presence: the unique key rejects a twin.
	_, err := s.InsertWebhookEvent(ctx(t), store.WebhookEvent{Provider: "p", ProviderEventID: "1", EventID: "a"})
	require.NoError(t, err)
	_, err = s.InsertWebhookEvent(ctx(t), store.WebhookEvent{Provider: "p", ProviderEventID: "1", EventID: "b"})
	assert.ErrorIs(t, err, store.ErrDuplicate, "UNIQUE(provider, provider_event_id) holds even with another event_id")
}

// normaliseKeys renders index directions as ints whatever numeric type the
// engine reports them in.
func normaliseKeys(d bson.D) bson.D {
	out := make(bson.D, len(d))
	for i, e := range d {
		switch v := e.Value.(type) {
		case int32:
			e.Value = int(v)
		case int64:
			e.Value = int(v)
		case float64:
			e.Value = int(v)
		}
		out[i] = e
	}
	return out
}

func testSearch(t *testing.T, open Opener) {
	clock := NewClock()
	s := open(t, store.Config{Now: clock.Now})
	wf, task := workflowCreated(clock.Now()), taskCreated(clock.Now().Add(time.Second))
	_, err := s.InsertEvents(ctx(t), []events.Envelope{wf, task})
	require.NoError(t, err)

	got, err := s.SearchEvents(ctx(t), "event-processor", "", 10)
	require.NoError(t, err)
	require.Len(t, got, 1)
	assert.Equal(t, task.EventID, got[0].EventID)

	got, err = s.SearchEvents(ctx(t), "user-7", "", 10)
	require.NoError(t, err)
	require.Len(t, got, 1)
	assert.Equal(t, wf.EventID, got[0].EventID)

	got, err = s.SearchEvents(ctx(t), "user-7", "partner-other", 10)
	require.NoError(t, err)
	assert.Empty(t, got, "outside the partner's executions")
	got, err = s.SearchEvents(ctx(t), "user-7", "partner-a", 10)
	require.NoError(t, err)
	assert.Len(t, got, 1)

	got, err = s.SearchEvents(ctx(t), "nothing-like-this", "", 10)
	require.NoError(t, err)
	assert.Empty(t, got)
}

func testPartnerScope(t *testing.T, open Opener) {
	for _, deliveries := range []int{10, 1000} {
		t.Run(fmt.Sprint(deliveries, "Deliveries"), func(t *testing.T) {
			clock := NewClock()
			s := open(t, store.Config{Now: clock.Now})
			for i := range deliveries {
				_, err := s.InsertWebhookEvent(ctx(t), store.WebhookEvent{Provider: "acme", ProviderEventID: fmt.Sprint("acme-", i), EventType: "OR_MGMT"})
				require.NoError(t, err)
			}
			var batch []events.Envelope
			for i := range 40 {
				env := workflowCreated(clock.Now().Add(time.Duration(i) * time.Millisecond))
				env.Metadata.PartnerID = []string{"acme", "beta"}[i%2]
				batch = append(batch, env)
			}
			_, err := s.InsertEvents(ctx(t), batch)
			require.NoError(t, err)

			f := store.ReplayFilter{PartnerID: "acme"}
			assert.Equal(t, bson.M{"partner_id": "acme"}, f.ToQuery(), "the scope is one field, not a list of the partner's deliveries")
			before := s.Commands()
			docs, _, err := s.FindEvents(ctx(t), f, nil, 100)
			require.NoError(t, err)
			assert.EqualValues(t, 1, s.Commands()-before, "one command, however many deliveries the partner sent")
			require.Len(t, docs, 20)
			for _, d := range docs {
				assert.Equal(t, "acme", d.PartnerID)
				env, err := d.Envelope()
				require.NoError(t, err)
				assert.Equal(t, "acme", env.Metadata.PartnerID, "metadata.partnerId round-trips")
			}
			found, err := s.SearchEvents(ctx(t), "workflow.created", "beta", 100)
			require.NoError(t, err)
			assert.Len(t, found, 20, "search is scoped the same way")
		})
	}
}

func testCountBy(t *testing.T, open Opener) {
	clock := NewClock()
	s := open(t, store.Config{Now: clock.Now})
	old, recent := clock.Now().Add(-2*time.Hour), clock.Now()
	var batch []events.Envelope
	for i, typ := range []events.Type{events.WorkflowCreated, events.WorkflowCreated, events.TaskCreated, events.WorkflowCreated, events.TaskCreated} {
		at := recent
		if i == 0 {
			at = old
		}
		env := workflowCreated(at)
		env.EventType = typ
		batch = append(batch, env)
	}
	_, err := s.InsertEvents(ctx(t), batch)
	require.NoError(t, err)

	all, err := s.CountBy(ctx(t), store.CollEvents, "event_type", "timestamp", time.Time{})
	require.NoError(t, err)
	assert.Equal(t, map[string]int64{"workflow.created": 3, "task.created": 2}, all)

	before := s.Commands()
	window, err := s.CountBy(ctx(t), store.CollEvents, "event_type", "timestamp", clock.Now().Add(-time.Hour))
	require.NoError(t, err)
	assert.Equal(t, map[string]int64{"workflow.created": 2, "task.created": 2}, window, "the window leaves the old event out")
	if Has(Aggregation) {
		assert.EqualValues(t, 1, s.Commands()-before, "one aggregation, whatever the number of values")
	}

	empty, err := s.CountBy(ctx(t), store.CollTasks, "status", "createdAt", time.Time{})
	require.NoError(t, err)
	assert.Empty(t, empty)
}

func testEventRate(t *testing.T, open Opener) {
	clock := NewClock()
	s := open(t, store.Config{Now: clock.Now})
	since := clock.Now().Truncate(time.Minute)
	// minute 0: 2 events, minute 1: none, minute 2: 3 (one on its first
	// millisecond), before and after the window: one each.
	var batch []events.Envelope
	for _, at := range []time.Duration{
		-time.Millisecond, 0, 59*time.Second + 999*time.Millisecond,
		2 * time.Minute, 2*time.Minute + 30*time.Second, 2*time.Minute + 59*time.Second, 3 * time.Minute,
	} {
		batch = append(batch, workflowCreated(since.Add(at)))
	}
	_, err := s.InsertEvents(ctx(t), batch)
	require.NoError(t, err)

	before := s.Commands()
	got, err := s.EventRate(ctx(t), since, time.Minute, 3)
	require.NoError(t, err)
	assert.Equal(t, []int64{2, 0, 3}, got, "each event in the bucket its timestamp falls in, the edges excluded")
	assert.EqualValues(t, 1, s.Commands()-before, "one command, whatever the number of buckets")

	empty, err := s.EventRate(ctx(t), since.Add(time.Hour), time.Minute, 60)
	require.NoError(t, err)
	assert.Equal(t, make([]int64, 60), empty)

	for _, bad := range []struct {
		bucket time.Duration
		n      int
	}{{time.Minute, 0}, {time.Minute, store.MaxRateBuckets + 1}, {0, 10}} {
		_, err := s.EventRate(ctx(t), since, bad.bucket, bad.n)
		assert.Error(t, err, "%d buckets of %s", bad.n, bad.bucket)
	}
}

func testPartnerOverview(t *testing.T, open Opener) {
	clock := NewClock()
	s := open(t, store.Config{Now: clock.Now})
	ids, err := s.PartnerIDs(ctx(t))
	require.NoError(t, err)
	assert.Empty(t, ids)
	breakers, err := s.OpenBreakers(ctx(t))
	require.NoError(t, err)
	assert.Empty(t, breakers)

	for _, p := range []string{"partner-b", "partner-a", "partner-b"} {
		_, err := s.InsertPartnerEvent(ctx(t), partnerEvent(p, "order-"+uuid.NewString(), status.PartnerSuccess, 1, clock.Now()))
		require.NoError(t, err)
	}
	until := clock.Now().Add(time.Minute)
	SaveBreakers(t, s,
		store.PartnerEndpoint{PartnerID: "partner-c", State: status.BreakerOpen, ConsecutiveFailures: 5, OpenUntil: &until, LastError: "HTTP 503"},
		store.PartnerEndpoint{PartnerID: "partner-a", State: status.BreakerClosed},
		store.PartnerEndpoint{PartnerID: "partner-d", State: status.BreakerHalfOpen, ConsecutiveFailures: 5},
	)

	ids, err = s.PartnerIDs(ctx(t))
	require.NoError(t, err)
	assert.Equal(t, []string{"partner-a", "partner-b", "partner-c", "partner-d"}, ids, "from partner events and endpoints, once each, sorted")

	breakers, err = s.OpenBreakers(ctx(t))
	require.NoError(t, err)
	require.Len(t, breakers, 2)
	assert.Equal(t, "partner-c", breakers[0].PartnerID)
	assert.Equal(t, status.BreakerOpen, breakers[0].State)
	assert.Equal(t, "HTTP 503", breakers[0].LastError)
	assert.Equal(t, "partner-d", breakers[1].PartnerID)
}

// testTTL: with a TTL monitor sweeping many times a second, a
// webhook_events row past WebhookEventTTL is deleted (and shows a sweep
// ran), a younger one is kept, and an event past EventTTL stays in events
// until it is archived, then goes.
func testTTL(t *testing.T, open Opener) {
	Require(t, FastTTL)
	s := open(t, store.Config{EventTTL: time.Millisecond, WebhookEventTTL: time.Hour, ExpireInterval: 20 * time.Millisecond})
	env := workflowCreated(time.Now())
	require.NoError(t, s.InsertEvent(ctx(t), env))
	require.NoError(t, s.MarkPublished(ctx(t), env.EventID))
	young, err := s.InsertWebhookEvent(ctx(t), store.WebhookEvent{Provider: "github", ProviderEventID: "young", EventType: "push", Payload: store.JSONDoc(`{}`)})
	require.NoError(t, err)
	old, err := s.InsertWebhookEvent(ctx(t), store.WebhookEvent{Provider: "github", ProviderEventID: "old", EventType: "push", Payload: store.JSONDoc(`{}`),
		ReceivedAt: time.Now().Add(-time.Hour - time.Second)})
	require.NoError(t, err)
	gone := func(get func() error) func() bool {
		return func() bool { return errors.Is(get(), store.ErrNotFound) }
	}
	assert.Eventually(t, gone(func() error { _, err := s.GetWebhookEvent(ctx(t), old.EventID); return err }), 30*time.Second, 20*time.Millisecond,
		"the TTL index deletes a webhook event received more than WebhookEventTTL ago")
	got, err := s.GetWebhookEvent(ctx(t), young.EventID)
	require.NoError(t, err, "a younger webhook event is kept")
	assert.Equal(t, got.ReceivedAt.Add(time.Hour), got.ExpireAt)
	doc, err := s.GetEvent(ctx(t), env.EventID)
	require.NoError(t, err, "an event past its TTL but not archived is kept")
	assert.Nil(t, doc.TTLExpiresAt)

	n, err := s.ArchiveDue(ctx(t), 10)
	require.NoError(t, err)
	require.Equal(t, 1, n)
	assert.Eventually(t, gone(func() error { _, err := s.GetEvent(ctx(t), env.EventID); return err }), 30*time.Second, 20*time.Millisecond,
		"archived, the TTL index deletes it")
	_, err = s.GetArchivedEvent(ctx(t), env.EventID)
	assert.NoError(t, err)
}

func testSubmissions(t *testing.T, open Opener) {
	clock := NewClock()
	s := open(t, store.Config{Now: clock.Now})
	wf := store.Workflow{WorkflowID: "wf-" + uuid.NewString(), Name: "Data Processing Pipeline",
		Steps: []string{"validate", "transform"}, Priority: "high", Input: store.JSONDoc(`{"records":[{"a":1}]}`), EventID: "evt-1"}
	got, err := s.CreateWorkflow(ctx(t), wf)
	require.NoError(t, err)
	assert.Equal(t, status.WorkflowPending, got.Status)
	clock.Advance(time.Second)
	again, err := s.CreateWorkflow(ctx(t), store.Workflow{WorkflowID: wf.WorkflowID, Name: "other"})
	require.ErrorIs(t, err, store.ErrDuplicate)
	assert.Equal(t, "Data Processing Pipeline", again.Name, "the first submission wins")
	assert.JSONEq(t, `{"records":[{"a":1}]}`, string(again.Input))
	assert.Equal(t, clock.Now().Add(-time.Second), again.CreatedAt)

	task := store.Task{TaskID: "task-" + uuid.NewString(), Type: "email_notification", Data: store.JSONDoc(`{"template":"welcome_email"}`), MaxRetries: 3}
	_, err = s.CreateTask(ctx(t), task)
	require.NoError(t, err)
	_, err = s.CreateTask(ctx(t), task)
	require.ErrorIs(t, err, store.ErrDuplicate)
	loaded, err := s.GetTask(ctx(t), task.TaskID)
	require.NoError(t, err)
	assert.Equal(t, status.TaskPending, loaded.Status)
	assert.Equal(t, 3, loaded.MaxRetries)

	_, err = s.GetWorkflow(ctx(t), "wf-missing")
	assert.ErrorIs(t, err, store.ErrNotFound)
	_, err = s.GetTask(ctx(t), "task-missing")
	assert.ErrorIs(t, err, store.ErrNotFound)
}

func testDeadLetters(t *testing.T, open Opener) {
	clock := NewClock()
	s := open(t, store.Config{Now: clock.Now})
	poison := store.DeadLetterEntry{
		Processor: "workflow-processor", Topic: "workflows", Partition: 1, Offset: 68,
		Value: []byte("wf-test|{not json"), Headers: []store.DeadLetterHeader{{Key: "content.type", Value: "text/plain"}},
		RecordTimestamp: clock.Now().Add(-time.Minute), Reason: "undecodable", Error: "value is not JSON",
	}
	res, err := s.InsertDeadLetters(ctx(t), poison)
	require.NoError(t, err)
	require.Len(t, res.Inserted, 1)
	assert.Equal(t, store.DeadLetterID("workflows", 1, 68), res.Inserted[0])

	clock.Advance(time.Second)
	invalid := poison
	invalid.Offset, invalid.Value, invalid.Reason = 69, []byte(`{"eventType":"workflow.created"}`), "schema-invalid"
	invalid.EventType, invalid.EventID, invalid.AggregateID = "workflow.created", "evt-1", "wf-1"
	res, err = s.InsertDeadLetters(ctx(t), poison, invalid)
	require.NoError(t, err, "a retried batch dead-letters the same record again")
	assert.Equal(t, []string{store.DeadLetterID("workflows", 1, 68)}, res.Duplicates)
	assert.Equal(t, []string{store.DeadLetterID("workflows", 1, 69)}, res.Inserted)

	got, err := s.GetDeadLetter(ctx(t), res.Duplicates[0])
	require.NoError(t, err)
	assert.Equal(t, []byte("wf-test|{not json"), got.Value, "the raw value is kept byte for byte")
	assert.Equal(t, status.DeadLetterOpen, got.Status)
	assert.Equal(t, clock.Now().Add(-time.Second), got.ReceivedAt, "the first insert wins")
	assert.Equal(t, []store.DeadLetterHeader{{Key: "content.type", Value: "text/plain"}}, got.Headers)

	require.NoError(t, s.ResolveDeadLetter(ctx(t), res.Duplicates[0], status.DeadLetterDiscarded))
	assert.ErrorIs(t, s.ResolveDeadLetter(ctx(t), res.Duplicates[0], status.DeadLetterReplayed), store.ErrNotFound, "only an open dead letter is resolved")
	listed, _, err := s.ListDeadLetters(ctx(t), store.DeadLetterQuery{Status: status.DeadLetterOpen})
	require.NoError(t, err)
	require.Len(t, listed, 1)
	assert.Equal(t, "schema-invalid", listed[0].Reason)
	assert.Equal(t, "wf-1", listed[0].AggregateID)
}

func testWorkflowCheckpoints(t *testing.T, open Opener) {
	clock := NewClock()
	s := open(t, store.Config{Now: clock.Now})
	stored := store.Workflow{WorkflowID: "wf-" + uuid.NewString(), Name: "Pipeline", Steps: []string{"validate", "store"},
		Priority: "high", EventID: "evt-stored"}
	_, err := s.CreateWorkflow(ctx(t), stored)
	require.NoError(t, err)

	started := clock.Now()
	progress := store.WorkflowCheckpoint{Workflow: stored, ResumeRecords: []store.JSONDoc{store.JSONDoc(`{"a":1}`)}}
	progress.Status, progress.CurrentStepIndex, progress.StartedAt = status.WorkflowProcessing, 1, &started
	progress.StepResults = []store.StepProgress{{StepName: "validate", StepIndex: 0, CompletedAt: started, Duration: 5,
		Result: store.JSONDoc(`{"recordsProcessed":1,"validRecords":1,"invalidRecords":0}`)}}
	missing := store.WorkflowCheckpoint{Workflow: store.Workflow{WorkflowID: "wf-" + uuid.NewString(), Name: "Recovered",
		Steps: []string{"validate"}, Priority: "low", EventID: "evt-missing", CorrelationID: "hook-1", WebhookEventID: "hook-1",
		Input: store.JSONDoc(`{"records":[]}`), CreatedAt: started.Add(-time.Minute)}}
	missing.Status, missing.CurrentStepIndex = status.WorkflowCompleted, 1
	n, err := s.SaveWorkflowCheckpoints(ctx(t), progress, missing)
	require.NoError(t, err)
	assert.Equal(t, 2, n)

	got, err := s.GetWorkflowCheckpoints(ctx(t), []string{stored.WorkflowID, missing.WorkflowID, "wf-none"})
	require.NoError(t, err)
	require.Len(t, got, 2)
	assert.Equal(t, status.WorkflowProcessing, got[stored.WorkflowID].Status)
	assert.Equal(t, 1, got[stored.WorkflowID].CurrentStepIndex)
	require.Len(t, got[stored.WorkflowID].ResumeRecords, 1)
	assert.JSONEq(t, `{"a":1}`, string(got[stored.WorkflowID].ResumeRecords[0]))
	assert.Equal(t, "Pipeline", got[stored.WorkflowID].Name)
	recovered := got[missing.WorkflowID]
	assert.Equal(t, status.WorkflowCompleted, recovered.Status, "a missing projection is created from its checkpoint")
	assert.Equal(t, "hook-1", recovered.WebhookEventID)
	assert.Equal(t, "evt-missing", recovered.EventID)
	assert.JSONEq(t, `{"records":[]}`, string(recovered.Input))

	// The workflow ends; then a stale retry of the earlier checkpoint and a
	// late one for the ended workflow change nothing.
	done := got[stored.WorkflowID]
	done.Status, done.CurrentStepIndex, done.ResumeRecords = status.WorkflowCompleted, 2, nil
	done.CompletedAt = &started
	_, err = s.SaveWorkflowCheckpoints(ctx(t), done)
	require.NoError(t, err)
	n, err = s.SaveWorkflowCheckpoints(ctx(t), progress, missing)
	require.NoError(t, err)
	assert.Equal(t, 0, n, "a checkpoint never moves an ended workflow back")
	wf, err := s.GetWorkflowCheckpoints(ctx(t), []string{stored.WorkflowID})
	require.NoError(t, err)
	assert.Equal(t, status.WorkflowCompleted, wf[stored.WorkflowID].Status)
	assert.Equal(t, 2, wf[stored.WorkflowID].CurrentStepIndex)
	assert.Empty(t, wf[stored.WorkflowID].ResumeRecords, "an ended workflow keeps no resume records")
}

func testTaskOutcomes(t *testing.T, open Opener) {
	clock := NewClock()
	s := open(t, store.Config{Now: clock.Now})
	task := store.Task{TaskID: "task-" + uuid.NewString(), Type: "email_notification", Data: store.JSONDoc(`{"recipient":"a@example.com"}`), MaxRetries: 3, EventID: "evt-1"}
	res, err := s.InsertTasks(ctx(t), task)
	require.NoError(t, err)
	require.Len(t, res.Inserted, 1)
	res, err = s.InsertTasks(ctx(t), task)
	require.NoError(t, err)
	require.Len(t, res.Duplicates, 1)

	next := clock.Now().Add(30 * time.Second)
	failed := store.TaskOutcome{Task: task, Attempt: 0}
	failed.Status, failed.RetryCount, failed.NextRetryAt = status.TaskFailed, 1, &next
	failed.LastError = &events.TaskError{Code: "SMTP_ERROR", Message: "timeout", Retryable: true}
	n, err := s.SaveTaskOutcomes(ctx(t), failed)
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	n, err = s.SaveTaskOutcomes(ctx(t), failed)
	require.NoError(t, err)
	assert.Equal(t, 0, n, "a redelivered attempt finds the task past it")

	due, err := s.DueTaskRetries(ctx(t), clock.Now(), 10)
	require.NoError(t, err)
	assert.Empty(t, due, "not due before nextRetryAt")
	clock.Advance(time.Minute)
	due, err = s.DueTaskRetries(ctx(t), clock.Now(), 10)
	require.NoError(t, err)
	require.Len(t, due, 1)
	assert.Equal(t, 1, due[0].RetryCount)
	assert.Equal(t, "SMTP_ERROR", due[0].LastError.Code)

	marked, err := s.MarkTaskRetriesRedelivered(ctx(t), store.TaskAttempt{TaskID: task.TaskID, RetryCount: 1},
		store.TaskAttempt{TaskID: "task-missing", RetryCount: 1})
	require.NoError(t, err)
	assert.Equal(t, 1, marked)
	marked, err = s.MarkTaskRetriesRedelivered(ctx(t), store.TaskAttempt{TaskID: task.TaskID, RetryCount: 1})
	require.NoError(t, err)
	assert.Zero(t, marked, "redelivered once")
	due, err = s.DueTaskRetries(ctx(t), clock.Now(), 10)
	require.NoError(t, err)
	assert.Empty(t, due)

	completed := store.TaskOutcome{Task: task, Attempt: 1}
	done := clock.Now()
	completed.Status, completed.RetryCount, completed.CompletedAt, completed.Result = status.TaskCompleted, 1, &done, store.JSONDoc(`{"emailSent":true}`)
	stale := store.TaskOutcome{Task: task, Attempt: 0}
	stale.Status, stale.RetryCount = status.TaskDeadLetter, 0
	created := store.TaskOutcome{Task: store.Task{TaskID: "task-" + uuid.NewString(), Type: "data_export", Data: store.JSONDoc(`{}`),
		MaxRetries: 1, EventID: "evt-2", CreatedAt: done}, Attempt: 0}
	created.Status, created.RetryCount = status.TaskCompleted, 0
	n, err = s.SaveTaskOutcomes(ctx(t), completed, stale, created)
	require.NoError(t, err)
	assert.Equal(t, 2, n, "the stale attempt is ignored")

	tasks, err := s.GetTasks(ctx(t), []string{task.TaskID, created.TaskID})
	require.NoError(t, err)
	got := tasks[task.TaskID]
	assert.Equal(t, status.TaskCompleted, got.Status)
	assert.Nil(t, got.NextRetryAt)
	assert.Nil(t, got.LastError, "a completed task has no last error")
	assert.JSONEq(t, `{"emailSent":true}`, string(got.Result))
	assert.Equal(t, "data_export", tasks[created.TaskID].Type, "a missing task is created from its outcome")
	assert.Equal(t, status.TaskCompleted, tasks[created.TaskID].Status)
}

func testWebhookOutcomes(t *testing.T, open Opener) {
	s := open(t, store.Config{})
	var ids []string
	for i := range 3 {
		ev, err := s.InsertWebhookEvent(ctx(t), store.WebhookEvent{Provider: "acme", ProviderEventID: fmt.Sprint("e-", i), EventType: "OR_PLC"})
		require.NoError(t, err)
		ids = append(ids, ev.EventID)
	}
	require.NoError(t, s.SetWebhookStatus(ctx(t), ids[1], status.WebhookProcessing, ""))
	require.NoError(t, s.SetWebhookStatus(ctx(t), ids[2], status.WebhookSkipped, ""))

	n, err := s.SettleWebhookEvents(ctx(t),
		store.WebhookOutcome{EventID: ids[0], Status: status.WebhookFailed, Error: "workflow failed in transform"},
		store.WebhookOutcome{EventID: ids[1], Status: status.WebhookCompleted},
		store.WebhookOutcome{EventID: ids[2], Status: status.WebhookCompleted})
	require.NoError(t, err)
	assert.Equal(t, 2, n, "a skipped row keeps its status")
	n, err = s.SettleWebhookEvents(ctx(t), store.WebhookOutcome{EventID: ids[1], Status: status.WebhookFailed, Error: "late"})
	require.NoError(t, err)
	assert.Equal(t, 0, n, "an ended row keeps its first outcome")

	got, err := s.GetWebhookEvents(ctx(t), ids)
	require.NoError(t, err)
	assert.Equal(t, status.WebhookFailed, got[ids[0]].Status)
	assert.Equal(t, "workflow failed in transform", got[ids[0]].ErrorMessage)
	assert.Equal(t, status.WebhookCompleted, got[ids[1]].Status)
	assert.NotNil(t, got[ids[1]].CompletedAt)
	assert.Equal(t, status.WebhookSkipped, got[ids[2]].Status)
	_, err = s.SettleWebhookEvents(ctx(t), store.WebhookOutcome{EventID: ids[0], Status: status.WebhookProcessing})
	assert.Error(t, err, "only completed and failed settle a webhook event")
}

func testWorkflowRecords(t *testing.T, open Opener) {
	s := open(t, store.Config{})
	wf := "wf-" + uuid.NewString()
	recs := []store.WorkflowRecord{
		{WorkflowID: wf, Dataset: "orders", StepIndex: 2, RecordIndex: 1, Record: store.JSONDoc(`{"id":2}`)},
		{WorkflowID: wf, Dataset: "orders", StepIndex: 2, RecordIndex: 0, Record: store.JSONDoc(`{"id":1}`)},
	}
	res, err := s.InsertWorkflowRecords(ctx(t), recs...)
	require.NoError(t, err)
	assert.Len(t, res.Inserted, 2)
	res, err = s.InsertWorkflowRecords(ctx(t), recs...)
	require.NoError(t, err)
	assert.Len(t, res.Duplicates, 2, "a step that runs again writes the same ids")

	got, err := s.WorkflowRecords(ctx(t), wf)
	require.NoError(t, err)
	require.Len(t, got, 2)
	assert.JSONEq(t, `{"id":1}`, string(got[0].Record))
	assert.Equal(t, store.WorkflowRecordID(wf, 2, 1), got[1].ID)
}

func testExport(t *testing.T, open Opener) {
	clock := NewClock()
	s := open(t, store.Config{Now: clock.Now})
	wf := "wf-" + uuid.NewString()
	_, err := s.InsertWorkflowRecords(ctx(t),
		store.WorkflowRecord{WorkflowID: wf, Dataset: "orders", RecordIndex: 0, Record: store.JSONDoc(`{"id":1,"tags":["a"]}`)},
		store.WorkflowRecord{WorkflowID: wf, Dataset: "other", RecordIndex: 1, Record: store.JSONDoc(`{"id":2}`)})
	require.NoError(t, err)
	_, err = s.CreateWorkflow(ctx(t), store.Workflow{WorkflowID: wf, Name: "n", Steps: []string{"store"}, Priority: "low",
		IdempotencyKey: "secret-key", RequestHash: "h"})
	require.NoError(t, err)

	docs, err := s.ExportDocuments(ctx(t), store.ExportQuery{Collection: store.CollWorkflowRecords, Filter: map[string]string{"dataset": "orders"}})
	require.NoError(t, err)
	require.Len(t, docs, 1)
	assert.JSONEq(t, fmt.Sprintf(`{"_id":%q,"workflowId":%q,"dataset":"orders","stepIndex":0,"recordIndex":0,"record":{"id":1,"tags":["a"]},"storedAt":"2026-01-04T01:09:27.123Z"}`,
		store.WorkflowRecordID(wf, 0, 0), wf), string(docs[0]))

	docs, err = s.ExportDocuments(ctx(t), store.ExportQuery{Collection: store.CollWorkflows})
	require.NoError(t, err)
	require.Len(t, docs, 1)
	assert.NotContains(t, string(docs[0]), "secret-key", "internal fields never leave in an export")

	for _, q := range []store.ExportQuery{
		{Collection: store.CollWebhookEvents},
		{Collection: store.CollEvents, Filter: map[string]string{"$where": "1"}},
		{Collection: store.CollEvents, Limit: store.MaxExportLimit + 1},
	} {
		_, err := s.ExportDocuments(ctx(t), q)
		var qerr *store.ExportQueryError
		assert.ErrorAs(t, err, &qerr, "%+v", q)
	}

	in, out := workflowCreated(clock.Now()), workflowCreated(clock.Now().Add(48*time.Hour))
	_, err = s.InsertEvents(ctx(t), []events.Envelope{in, taskCreated(clock.Now()), out})
	require.NoError(t, err)
	counts, err := s.CountEventsByType(ctx(t), clock.Now().Add(-time.Hour), clock.Now().Add(time.Hour))
	require.NoError(t, err)
	assert.Equal(t, map[string]int{"workflow.created": 1, "task.created": 1}, counts)
}

// testCausalOrder: an aggregate's events that share a millisecond come back
// in the order they were stored (their causal order), not by event id;
// paging one by one gives the same order while more events of that
// millisecond arrive.
func testCausalOrder(t *testing.T, open Opener) {
	clock := NewClock()
	s := open(t, store.Config{Now: clock.Now})
	at := clock.Now()
	wf := "wf-" + uuid.NewString()
	mk := func(typ events.Type, id string) events.Envelope {
		env := envelope(typ, at, map[string]any{"workflowId": wf}, nil)
		env.EventID = id
		return env
	}
	// Event ids sort the opposite way round from the order of events.
	created := mk(events.WorkflowCreated, "evt-9")
	require.NoError(t, s.InsertEvent(ctx(t), created))
	lifecycle := []events.Envelope{mk(events.WorkflowProcessing, "evt-8"), mk(events.WorkflowStepCompleted, "evt-7"),
		mk(events.WorkflowStepCompleted, "evt-6"), mk(events.WorkflowCompleted, "evt-5")}
	_, err := s.InsertEvents(ctx(t), lifecycle)
	require.NoError(t, err)
	want := []string{"evt-9", "evt-8", "evt-7", "evt-6", "evt-5"}

	docs, _, err := s.FindEvents(ctx(t), store.ReplayFilter{AggregateID: wf}, nil, 10)
	require.NoError(t, err)
	var got []string
	for _, d := range docs {
		got = append(got, d.EventID)
	}
	assert.Equal(t, want, got, "stored order, though all share one millisecond")

	var paged []string
	var after *store.Cursor
	for range 10 {
		page, next, err := s.FindEvents(ctx(t), store.ReplayFilter{AggregateID: wf}, after, 1)
		require.NoError(t, err)
		for _, d := range page {
			paged = append(paged, d.EventID)
		}
		if len(paged) == 2 { // more of the same millisecond arrive mid-walk
			require.NoError(t, s.InsertEvent(ctx(t), mk(events.WorkflowStepCompleted, "evt-0")))
		}
		if next == "" {
			break
		}
		c, err := store.DecodeCursor(next)
		require.NoError(t, err)
		after = &c
	}
	assert.Equal(t, append(want, "evt-0"), paged, "the cursor is a stable position: nothing skipped or repeated")
}

// testWebhookEventsToRoute: the retry-sweeper's query selects received
// rows past the cut-off and routing failures (failed, no run) below the
// retry limit, and never a row whose run reached its end, whatever its
// retry_count.
func testWebhookEventsToRoute(t *testing.T, open Opener) {
	clock := NewClock()
	s := open(t, store.Config{Now: clock.Now})
	insert := func(id, to string, retries int, runID string) string {
		ev, err := s.InsertWebhookEvent(ctx(t), store.WebhookEvent{Provider: "acme", ProviderEventID: id, EventType: "OR_PLC",
			Status: to, RetryCount: retries, RunID: runID, Payload: store.JSONDoc(`{}`)})
		require.NoError(t, err)
		return ev.EventID
	}
	received := insert("received", status.WebhookReceived, 0, "")
	routingFailed := insert("routing-failed", status.WebhookFailed, 1, "")
	routingSpent := insert("routing-spent", status.WebhookFailed, 5, "")
	runFailed := insert("run-failed", status.WebhookFailed, 1, "wf-run-failed")
	insert("completed", status.WebhookCompleted, 1, "wf-completed")
	insert("skipped", status.WebhookSkipped, 0, "")
	insert("processing", status.WebhookProcessing, 1, "wf-processing")
	started := insert("started-then-failed", status.WebhookProcessing, 1, "wf-started")
	n, err := s.SettleWebhookEvents(ctx(t), store.WebhookOutcome{EventID: started, RunID: "wf-started", Status: status.WebhookFailed, Error: "INVALID_INPUT"})
	require.NoError(t, err)
	require.Equal(t, 1, n)
	clock.Advance(time.Minute)

	ids := func(evs []store.WebhookEvent) []string {
		var out []string
		for _, e := range evs {
			out = append(out, e.EventID)
		}
		return out
	}
	got, err := s.WebhookEventsToRoute(ctx(t), clock.Now(), 5, 100)
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{received, routingFailed}, ids(got))
	got, err = s.WebhookEventsToRoute(ctx(t), clock.Now().Add(-2*time.Minute), 5, 100)
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{routingFailed}, ids(got), "a received row younger than the cut-off is the inline path's")
	for _, id := range []string{runFailed, started} {
		row, err := s.GetWebhookEvent(ctx(t), id)
		require.NoError(t, err)
		assert.True(t, row.RunEnded(), "%s: failed after its run started", id)
	}
	spent, err := s.GetWebhookEvent(ctx(t), routingSpent)
	require.NoError(t, err)
	assert.False(t, spent.RunEnded(), "a routing failure's run never started")
	require.NoError(t, s.SetWebhookStatus(ctx(t), runFailed, status.WebhookProcessing, ""))
	require.NoError(t, s.SetWebhookStatus(ctx(t), runFailed, status.WebhookFailed, "route gone"))
	row, err := s.GetWebhookEvent(ctx(t), runFailed)
	require.NoError(t, err)
	assert.Empty(t, row.RunID, "failed by routing: no run")
}

// testWebhookAttempt: a new attempt applies to a row whose run ended, as
// loaded, once; it records the attempt, clears the run before, and puts
// the row back to received; a late outcome of the run before settles
// nothing of the new attempt.
func testWebhookAttempt(t *testing.T, open Opener) {
	clock := NewClock()
	s := open(t, store.Config{Now: clock.Now})
	ev, err := s.InsertWebhookEvent(ctx(t), store.WebhookEvent{Provider: "acme", ProviderEventID: "a-1", EventType: "OR_PLC",
		Status: status.WebhookProcessing, RetryCount: 1, RunID: "wf-1", Payload: store.JSONDoc(`{}`)})
	require.NoError(t, err)
	a := store.WebhookAttempt{Attempt: 2, PreviousStatus: status.WebhookFailed, PreviousRunID: "wf-1", Reason: "fixed",
		RequestedBy: "op", RequestedAt: clock.Now()}
	assert.ErrorIs(t, s.StartWebhookAttempt(ctx(t), ev, a), store.ErrStatusConflict, "a run still going gets no new attempt")

	_, err = s.SettleWebhookEvents(ctx(t), store.WebhookOutcome{EventID: ev.EventID, RunID: "wf-1", Status: status.WebhookFailed, Error: "boom"})
	require.NoError(t, err)
	loaded, err := s.GetWebhookEvent(ctx(t), ev.EventID)
	require.NoError(t, err)
	require.NoError(t, s.StartWebhookAttempt(ctx(t), loaded, a))
	assert.ErrorIs(t, s.StartWebhookAttempt(ctx(t), loaded, a), store.ErrStatusConflict, "the row changed since it was loaded")

	got, err := s.GetWebhookEvent(ctx(t), ev.EventID)
	require.NoError(t, err)
	assert.Equal(t, status.WebhookReceived, got.Status)
	assert.Equal(t, 2, got.CurrentAttempt())
	assert.Empty(t, got.RunID)
	assert.Empty(t, got.ErrorMessage)
	assert.Nil(t, got.CompletedAt)
	require.Len(t, got.Attempts, 1)
	assert.Equal(t, a, got.Attempts[0])

	require.NoError(t, s.MarkWebhookRouted(ctx(t), ev.EventID, "wf-2"))
	n, err := s.SettleWebhookEvents(ctx(t), store.WebhookOutcome{EventID: ev.EventID, RunID: "wf-1", Status: status.WebhookCompleted})
	require.NoError(t, err)
	assert.Zero(t, n, "a late outcome of the run before settles nothing")
	n, err = s.SettleWebhookEvents(ctx(t), store.WebhookOutcome{EventID: ev.EventID, RunID: "wf-2", Status: status.WebhookCompleted})
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	got, err = s.GetWebhookEvent(ctx(t), ev.EventID)
	require.NoError(t, err)
	assert.Equal(t, status.WebhookCompleted, got.Status)
	assert.Equal(t, "wf-2", got.RunID)
	assert.Equal(t, 2, got.RetryCount, "each attempt's routing counted")
}
