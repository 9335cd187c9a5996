package store

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/mongo/options"

	"github.com/streamops/streamops/internal/status"
)

// MaxPartnerAttempts caps resilienceAttemptCount (status.PartnerMaxAttempts);
// the retry query excludes events that reached it.
const MaxPartnerAttempts = status.PartnerMaxAttempts

// PartnerHistoryLimit is the page size of seed 000's partner history query.
const PartnerHistoryLimit = 100

// PartnerEvent is a partner_events document of seed 000. Field names and
// representations are the seed's: created and lastUpdatedTime are epoch
// milliseconds as strings, expire_at a date.
type PartnerEvent struct {
	ID              string                `bson:"_id" json:"_id"`
	EventDayID      int                   `bson:"event_day_id" json:"event_day_id"`
	EventVersion    string                `bson:"event_version" json:"event_version"`
	EventType       string                `bson:"event_type" json:"event_type"`
	EventStatus     string                `bson:"event_status" json:"event_status"`
	EventDirection  string                `bson:"event_direction" json:"event_direction"`
	EntityMetadata  PartnerEntityMetadata `bson:"entity_metadata" json:"entity_metadata"`
	EntityData      JSONDoc               `bson:"entity_data" json:"entity_data"`
	ExpireAt        time.Time             `bson:"expire_at" json:"expire_at"`
	Created         string                `bson:"created" json:"created"`
	CreatedBy       string                `bson:"createdBy" json:"createdBy"`
	LastUpdatedTime string                `bson:"lastUpdatedTime" json:"lastUpdatedTime"`
	// OutboxID links an OUT event to the integration_outbox entry that
	// delivers it (not in seed 000: the retry-sweeper re-enqueues by it).
	OutboxID string `bson:"outbox_id,omitempty" json:"outbox_id,omitempty"`
	// ProcessingUntil is when the claim of an OUT event's attempt in flight
	// (event_status PROCESSING) lapses: a relay that died mid-attempt
	// leaves it, and ReleaseExpiredPartnerClaims puts the event back (not
	// in seed 000).
	ProcessingUntil *time.Time `bson:"processing_until,omitempty" json:"processing_until,omitempty"`
	// The version of an IN event (ReceivePartnerEvent; not in seed 000).
	// One document holds an entity's state per partner, direction and
	// event type, the seed's idempotency key: WebhookEventID is the
	// webhook event whose delivery carried the current state, received at
	// VersionReceivedAt; EntityDataHash fingerprints that state
	// (provider.Provider.EntityFingerprint); EntityVersion counts the
	// states the document has held, from 1.
	WebhookEventID    string     `bson:"webhook_event_id,omitempty" json:"webhook_event_id,omitempty"`
	EntityDataHash    string     `bson:"entity_data_hash,omitempty" json:"entity_data_hash,omitempty"`
	EntityVersion     int        `bson:"entity_version,omitempty" json:"entity_version,omitempty"`
	VersionReceivedAt *time.Time `bson:"version_received_at,omitempty" json:"version_received_at,omitempty"`
}

// PartnerEntityMetadata is seed 000's entity_metadata.
type PartnerEntityMetadata struct {
	PartnerID   string `bson:"partnerId" json:"partnerId"`
	PartnerName string `bson:"partnerName" json:"partnerName"`
	EntityID    string `bson:"entity_id" json:"entity_id"`
	EntityType  string `bson:"entity_type" json:"entity_type"`
	// ResilienceAttemptCount maps attempt number ("1".."5") to the attempt's
	// epoch milliseconds as a string.
	ResilienceAttemptCount map[string]string `bson:"resilienceAttemptCount,omitempty" json:"resilienceAttemptCount,omitempty"`
}

// epochMillis renders t as seed 000 does: epoch milliseconds in a string.
func epochMillis(t time.Time) string { return strconv.FormatInt(t.UnixMilli(), 10) }

// InsertPartnerEvent stores a partner event. Empty fields get defaults: _id
// from PartnerEventID (seed 000: entity_id + event_type dedupe), status
// PENDING, event_version "v1", event_day_id (days since epoch), created and
// lastUpdatedTime now, expire_at now + the event TTL. Storing the same id
// again returns ErrDuplicate and changes nothing.
func (s *Store) InsertPartnerEvent(ctx context.Context, ev PartnerEvent) (PartnerEvent, error) {
	ev, err := s.partnerDefaults(ev)
	if err != nil {
		return PartnerEvent{}, err
	}
	_, err = s.partnerEvents.InsertOne(ctx, ev)
	return ev, normalise(err)
}

func (s *Store) partnerDefaults(ev PartnerEvent) (PartnerEvent, error) {
	md := ev.EntityMetadata
	if md.PartnerID == "" || md.EntityID == "" || ev.EventType == "" {
		return PartnerEvent{}, errors.New("store: partner event needs entity_metadata.partnerId, entity_metadata.entity_id and event_type")
	}
	if !status.IsDirection(ev.EventDirection) {
		return PartnerEvent{}, fmt.Errorf("store: partner event direction must be IN or OUT, got %q", ev.EventDirection)
	}
	now := s.now()
	if ev.ID == "" {
		ev.ID = PartnerEventID(md.PartnerID, ev.EventDirection, md.EntityID, ev.EventType)
	}
	if ev.EventStatus == "" {
		ev.EventStatus = status.PartnerPending
	}
	if ev.EventVersion == "" {
		ev.EventVersion = "v1"
	}
	if ev.EventDayID == 0 {
		ev.EventDayID = int(now.Unix() / 86400)
	}
	if ev.Created == "" {
		ev.Created = epochMillis(now)
	}
	ev.LastUpdatedTime = epochMillis(now)
	if ev.ExpireAt.IsZero() {
		ev.ExpireAt = now.Add(s.cfg.EventTTL)
	}
	ev.ExpireAt = bsonTime(ev.ExpireAt)
	return ev, nil
}

// How ReceivePartnerEvent took an inbound delivery.
const (
	// PartnerEventNew: the first delivery of the entity and event type; the
	// document is stored at version 1.
	PartnerEventNew = "new"
	// PartnerEventNewVersion: a later delivery whose entity state differs
	// from the stored one; the document now holds it, its version one up.
	PartnerEventNewVersion = "new_version"
	// PartnerEventSameDelivery: the webhook event that holds the current
	// version, routed again (a crash, the retry-sweeper): nothing changes.
	PartnerEventSameDelivery = "same_delivery"
	// PartnerEventOlder: a delivery received before the current version's,
	// routed again: it never replaces the newer state.
	PartnerEventOlder = "older"
	// PartnerEventResend: another delivery of the state already stored (a
	// partner's resend under a new event id): a duplicate, nothing changes
	// and its webhook must start nothing.
	PartnerEventResend = "resend"
)

// PartnerReceipt is how ReceivePartnerEvent took a delivery, with the
// document as it now is.
type PartnerReceipt struct {
	Outcome string
	Event   PartnerEvent
}

// maxVersionRaces bounds how often ReceivePartnerEvent reads again after
// losing a race for the document to a concurrent delivery.
const maxVersionRaces = 8

// ReceivePartnerEvent stores an inbound partner delivery under seed 000's
// idempotency key: _id is PartnerEventID(partnerId, IN, entity_id,
// event_type) and the document holds that entity's latest state
// (entity_data). ev carries WebhookEventID, EntityDataHash and
// VersionReceivedAt. A second delivery of the same key is a resend when its
// fingerprint is the stored one (PartnerEventResend: changed nothing), a
// new version of the entity's state when it differs (stored with one
// conditional update, so of two concurrent deliveries one wins and the
// other is judged against it), and never replaces a newer version when it
// was received before it (PartnerEventOlder).
func (s *Store) ReceivePartnerEvent(ctx context.Context, ev PartnerEvent) (PartnerReceipt, error) {
	ev.ID = ""
	ev, err := s.partnerDefaults(ev)
	if err != nil {
		return PartnerReceipt{}, err
	}
	if ev.EventDirection != status.DirectionIn || ev.WebhookEventID == "" || ev.EntityDataHash == "" || ev.VersionReceivedAt == nil || ev.VersionReceivedAt.IsZero() {
		return PartnerReceipt{}, errors.New("store: an inbound partner delivery needs direction IN, webhook_event_id, entity_data_hash and version_received_at")
	}
	at := bsonTime(*ev.VersionReceivedAt)
	ev.VersionReceivedAt, ev.EntityVersion = &at, 1
	for range maxVersionRaces {
		// The first delivery of a key is one command; a later one is
		// judged against the stored document.
		if _, err := s.partnerEvents.InsertOne(ctx, ev); err == nil {
			return PartnerReceipt{Outcome: PartnerEventNew, Event: ev}, nil
		} else if !isDuplicate(err) {
			return PartnerReceipt{}, normalise(err)
		}
		cur, err := s.GetPartnerEvent(ctx, ev.ID)
		if errors.Is(err, ErrNotFound) {
			continue // expired meanwhile: insert again
		}
		if err != nil {
			return PartnerReceipt{}, err
		}
		switch {
		case cur.WebhookEventID == ev.WebhookEventID:
			return PartnerReceipt{Outcome: PartnerEventSameDelivery, Event: cur}, nil
		case cur.VersionReceivedAt != nil && at.Before(*cur.VersionReceivedAt):
			return PartnerReceipt{Outcome: PartnerEventOlder, Event: cur}, nil
		case cur.EntityDataHash == ev.EntityDataHash:
			return PartnerReceipt{Outcome: PartnerEventResend, Event: cur}, nil
		}
		next := cur
		next.EntityMetadata.PartnerName, next.EntityMetadata.EntityType = ev.EntityMetadata.PartnerName, ev.EntityMetadata.EntityType
		next.EntityData, next.EntityDataHash, next.WebhookEventID = ev.EntityData, ev.EntityDataHash, ev.WebhookEventID
		next.VersionReceivedAt, next.EntityVersion, next.LastUpdatedTime = &at, cur.EntityVersion+1, ev.LastUpdatedTime
		next.EventStatus, next.CreatedBy, next.ExpireAt = ev.EventStatus, ev.CreatedBy, ev.ExpireAt
		// Replaced only as it was read: a concurrent delivery's version
		// makes this one read again and be judged against it.
		filter := bson.M{"_id": cur.ID, "webhook_event_id": bson.M{"$exists": false}, "entity_version": bson.M{"$exists": false}}
		if cur.WebhookEventID != "" {
			filter["webhook_event_id"] = cur.WebhookEventID
		}
		if cur.EntityVersion != 0 {
			filter["entity_version"] = cur.EntityVersion
		}
		res, err := s.partnerEvents.ReplaceOne(ctx, filter, next)
		if err != nil {
			return PartnerReceipt{}, normalise(err)
		}
		if res.MatchedCount == 1 {
			return PartnerReceipt{Outcome: PartnerEventNewVersion, Event: next}, nil
		}
	}
	return PartnerReceipt{}, fmt.Errorf("store: partner event %s kept changing while a delivery was stored; try again", ev.ID)
}

// GetPartnerEvent loads a partner event by id.
func (s *Store) GetPartnerEvent(ctx context.Context, id string) (PartnerEvent, error) {
	return getByID[PartnerEvent](ctx, s.partnerEvents, id)
}

// PartnerDeliveryOf loads the OUT partner event outbox entry outboxID
// delivers; ErrNotFound when there is none (not a partner delivery, not
// claimed yet, or another entry of the same entity and event type holds
// the document now).
func (s *Store) PartnerDeliveryOf(ctx context.Context, outboxID string) (PartnerEvent, error) {
	return findOne[PartnerEvent](ctx, s.partnerEvents, bson.M{"outbox_id": outboxID, "event_direction": status.DirectionOut})
}

// PartnerAttempt is one delivery attempt of a partner event.
type PartnerAttempt struct {
	// ID is the partner event's id.
	ID string
	// N is the attempt number, 1..MaxPartnerAttempts.
	N int
	// At is when the attempt was made.
	At time.Time
	// Status is the event status after the attempt (SUCCESS, FAILED,
	// DEAD_LETTER).
	Status string
	// OutboxID, when set, is the outbox entry that made the attempt: it is
	// recorded only while the document is that entry's delivery.
	OutboxID string
}

// RecordPartnerAttempt records delivery attempt n (1..MaxPartnerAttempts) at
// time at in entity_metadata.resilienceAttemptCount and sets the status. It
// is idempotent per attempt number. ErrNotFound for an unknown id.
func (s *Store) RecordPartnerAttempt(ctx context.Context, id string, n int, at time.Time, status string) error {
	matched, err := s.RecordPartnerAttempts(ctx, PartnerAttempt{ID: id, N: n, At: at, Status: status})
	if err == nil && matched == 0 {
		return ErrNotFound
	}
	return err
}

// RecordPartnerAttempts records many attempts with one bulk write and
// returns how many partner events matched. An attempt number outside
// 1..MaxPartnerAttempts is refused: the seed caps the count. Attempt 1
// begins a round: it replaces resilienceAttemptCount, so an operator's
// requeue (a new round, RequeueOutboxEntry) never shows the previous
// round's later attempts beside the new ones.
func (s *Store) RecordPartnerAttempts(ctx context.Context, attempts ...PartnerAttempt) (int, error) {
	now := epochMillis(s.now())
	res, err := writeEach(ctx, s.partnerEvents, "record partner attempts", attempts, func(a PartnerAttempt) (mongo.WriteModel, error) {
		if a.N < 1 || a.N > MaxPartnerAttempts {
			return nil, fmt.Errorf("store: partner attempt %d outside 1..%d", a.N, MaxPartnerAttempts)
		}
		set := bson.M{"event_status": a.Status, "lastUpdatedTime": now}
		update := bson.M{"$set": set, "$unset": bson.M{"processing_until": ""}}
		filter := bson.M{"_id": a.ID}
		if a.OutboxID != "" {
			filter["outbox_id"] = a.OutboxID
		}
		if a.N == 1 {
			// The first attempt of a round: a requeued delivery's earlier
			// round is not this one's.
			set["entity_metadata.resilienceAttemptCount"] = bson.M{"1": epochMillis(a.At)}
		} else {
			set["entity_metadata.resilienceAttemptCount."+strconv.Itoa(a.N)] = epochMillis(a.At)
		}
		return mongo.NewUpdateOneModel().SetFilter(filter).SetUpdate(update), nil
	})
	if err != nil {
		return 0, err
	}
	return int(res.MatchedCount), nil
}

// bsonDoc is v as the document the store would write.
func bsonDoc(v any) (bson.M, error) {
	raw, err := bson.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("store: encode: %w", err)
	}
	var m bson.M
	if err := bson.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("store: encode: %w", err)
	}
	return m, nil
}

// PartnerClaim is an OUT delivery an outbox claim is about to attempt.
type PartnerClaim struct {
	// Event is its document as first stored: _id seed 000's key
	// (PartnerEventID of the partner, OUT, entity_id and event_type),
	// outbox_id the entry.
	Event PartnerEvent
	// FirstOfRound is whether this is the entry's first attempt of a round:
	// only then may it take over a document another entry of the same
	// entity and event type holds.
	FirstOfRound bool
}

// ClaimPartnerDeliveries marks the OUT deliveries a relay is about to
// attempt PROCESSING until until (the outbox claim's lease), storing each
// document first if it is new, so seed 000's "Failed Events for Retry"
// never selects a delivery while it is being sent. The document is the
// delivery of one entity and event type to a partner: a second outbox
// entry of the same key is a new version of it, taking the document over
// (its outbox_id, entity_data, an empty resilienceAttemptCount,
// entity_version one up) on its first attempt of a round; a later attempt
// of an entry that no longer holds the document records nothing. A relay
// that dies mid-attempt leaves PROCESSING behind until until:
// ReleaseExpiredPartnerClaims puts it back.
func (s *Store) ClaimPartnerDeliveries(ctx context.Context, until time.Time, claims ...PartnerClaim) error {
	if len(claims) == 0 {
		return nil
	}
	now := s.now()
	until = bsonTime(until)
	evs := make([]PartnerEvent, len(claims))
	var takeovers []PartnerEvent
	for i, c := range claims {
		ev, err := s.partnerDefaults(c.Event)
		if err != nil {
			return err
		}
		if ev.EventDirection != status.DirectionOut || ev.OutboxID == "" {
			return fmt.Errorf("store: partner claim %s: needs direction OUT and an outbox_id", ev.ID)
		}
		evs[i] = ev
		if c.FirstOfRound {
			takeovers = append(takeovers, ev)
		}
	}
	processing := func(PartnerEvent) bson.M {
		return bson.M{"event_status": status.PartnerProcessing, "processing_until": until, "lastUpdatedTime": epochMillis(now)}
	}
	if _, err := writeEach(ctx, s.partnerEvents, "take over partner deliveries", takeovers, func(ev PartnerEvent) (mongo.WriteModel, error) {
		set := processing(ev)
		set["outbox_id"], set["entity_data"], set["entity_metadata.entity_type"] = ev.OutboxID, ev.EntityData, ev.EntityMetadata.EntityType
		set["expire_at"] = ev.ExpireAt
		return mongo.NewUpdateOneModel().SetFilter(bson.M{"_id": ev.ID, "outbox_id": bson.M{"$ne": ev.OutboxID}}).
			SetUpdate(bson.M{"$set": set, "$inc": bson.M{"entity_version": 1},
				"$unset": bson.M{"entity_metadata.resilienceAttemptCount": ""}}), nil
	}); err != nil {
		return err
	}
	models, err := writeModels(evs, func(ev PartnerEvent) (mongo.WriteModel, error) {
		insert := ev
		insert.EventStatus, insert.ProcessingUntil, insert.EntityVersion = "", nil, 1
		doc, err := bsonDoc(insert)
		if err != nil {
			return nil, err
		}
		for _, k := range []string{"_id", "outbox_id", "event_status", "processing_until", "lastUpdatedTime"} {
			delete(doc, k)
		}
		return mongo.NewUpdateOneModel().SetFilter(bson.M{"_id": ev.ID, "outbox_id": ev.OutboxID}).
			SetUpdate(bson.M{"$setOnInsert": doc, "$set": processing(ev)}).SetUpsert(true), nil
	})
	if err != nil {
		return err
	}
	_, err = s.partnerEvents.BulkWrite(ctx, models, options.BulkWrite().SetOrdered(false))
	// A duplicate key: another entry holds the document (a later attempt of
	// an entry it took over from); nothing is recorded for this one.
	if _, other := duplicateIndexes(err); other != nil {
		return fmt.Errorf("store: claim partner deliveries: %w", normalise(other))
	}
	return nil
}

// ReleasePartnerClaims puts the OUT deliveries of the outbox entries that
// a claim did not attempt after all (deferred, throttled, exhausted) back
// from PROCESSING: FAILED when attempts are recorded, else PENDING.
func (s *Store) ReleasePartnerClaims(ctx context.Context, claims ...PartnerAttempt) error {
	if len(claims) == 0 {
		return nil
	}
	ids, outboxIDs := make([]string, len(claims)), make([]string, len(claims))
	for i, c := range claims {
		ids[i], outboxIDs[i] = c.ID, c.OutboxID
	}
	_, err := s.releasePartnerClaims(ctx, bson.M{"_id": bson.M{"$in": ids}, "outbox_id": bson.M{"$in": outboxIDs}})
	return err
}

// ReleaseExpiredPartnerClaims puts back the OUT deliveries whose claim
// lapsed at now while still PROCESSING (a relay died mid-attempt): FAILED
// when attempts are recorded, so seed 000's "Failed Events for Retry"
// selects them again, else PENDING; the outbox's own reclaimed lease
// sends them again. It returns how many it put back.
func (s *Store) ReleaseExpiredPartnerClaims(ctx context.Context, now time.Time) (int, error) {
	return s.releasePartnerClaims(ctx, bson.M{"processing_until": bson.M{"$lte": bsonTime(now)}})
}

// releasePartnerClaims puts the PROCESSING deliveries filter selects back
// to FAILED or PENDING.
func (s *Store) releasePartnerClaims(ctx context.Context, filter bson.M) (int, error) {
	n := 0
	for _, back := range []struct {
		attempted bool
		status    string
	}{{true, status.PartnerFailed}, {false, status.PartnerPending}} {
		f := bson.M{"event_status": status.PartnerProcessing, "event_direction": status.DirectionOut,
			"entity_metadata.resilienceAttemptCount.1": bson.M{"$exists": back.attempted}}
		for k, v := range filter {
			f[k] = v
		}
		changed, err := updateMatching(ctx, s.partnerEvents, f, bson.M{
			"$set":   bson.M{"event_status": back.status, "lastUpdatedTime": epochMillis(s.now())},
			"$unset": bson.M{"processing_until": ""}})
		n += int(changed)
		if err != nil {
			return n, fmt.Errorf("store: release partner claims: %w", err)
		}
	}
	return n, nil
}

// restartPartnerDeliveries puts the OUT deliveries of outbox entries
// starting a new round (requeued or resent) back to PENDING with no
// attempts recorded, with one update, so the relay records the new round
// as resilienceAttemptCount 1..5 and seed 000's "Failed Events for Retry"
// query sees it as it sees any delivery in progress. The relay's first
// attempt of a round replaces resilienceAttemptCount too
// (RecordPartnerAttempts), so a requeue interrupted between its two
// writes still ends with the new round's attempts alone. An entry never
// delivered to a partner has none: nothing changes.
func (s *Store) restartPartnerDeliveries(ctx context.Context, now time.Time, outboxIDs ...string) error {
	if len(outboxIDs) == 0 {
		return nil
	}
	_, err := s.partnerEvents.UpdateMany(ctx,
		bson.M{"outbox_id": bson.M{"$in": outboxIDs}, "event_direction": status.DirectionOut},
		bson.M{
			"$set":   bson.M{"event_status": status.PartnerPending, "lastUpdatedTime": epochMillis(now)},
			"$unset": bson.M{"entity_metadata.resilienceAttemptCount": ""},
		})
	if err != nil {
		return fmt.Errorf("store: restart the partner deliveries of %d outbox entries: %w", len(outboxIDs), err)
	}
	return nil
}

// FailedPartnerEventsForRetry is seed 000's "Failed Events for Retry" query:
// event_status FAILED and no fifth attempt recorded. limit <= 0 means all.
func (s *Store) FailedPartnerEventsForRetry(ctx context.Context, limit int) ([]PartnerEvent, error) {
	return s.failedForRetry(ctx, bson.M{}, limit)
}

// ReconcilePartnerDeliveries repairs OUT deliveries that seed 000's
// "Failed Events for Retry" query still selects although their outbox
// entry is over: a relay that settled the entry but died before recording
// the attempt, or documents written before dead-lettered deliveries were
// recorded DEAD_LETTER. Each such delivery takes its entry's final status
// (completed: SUCCESS, dead_letter: DEAD_LETTER), so the query no longer
// selects it; the outbox is never touched, and a dead letter is never sent
// again. Deliveries whose entry is still scheduled are the relay's. It
// looks at up to limit of the query's deliveries, oldest first (<= 0: all),
// and returns how many it repaired.
func (s *Store) ReconcilePartnerDeliveries(ctx context.Context, limit int) (int, error) {
	evs, err := s.failedForRetry(ctx, bson.M{"event_direction": status.DirectionOut,
		"outbox_id": bson.M{"$exists": true, "$ne": ""}}, limit)
	if err != nil || len(evs) == 0 {
		return 0, err
	}
	byOutbox := make(map[string][]string, len(evs))
	ids := make([]string, 0, len(evs))
	for _, ev := range evs {
		if _, seen := byOutbox[ev.OutboxID]; !seen {
			ids = append(ids, ev.OutboxID)
		}
		byOutbox[ev.OutboxID] = append(byOutbox[ev.OutboxID], ev.ID)
	}
	over, err := findAll[OutboxEntry](ctx, s.outbox, bson.M{"_id": bson.M{"$in": ids},
		"status": bson.M{"$in": bson.A{status.OutboxCompleted, status.OutboxDeadLetter}}},
		options.Find().SetProjection(bson.M{"status": 1}))
	if err != nil {
		return 0, fmt.Errorf("store: outbox entries of failed partner deliveries: %w", err)
	}
	type repair struct{ id, status string }
	var repairs []repair
	for _, e := range over {
		to := status.PartnerDeadLetter
		if e.Status == status.OutboxCompleted {
			to = status.PartnerSuccess
		}
		for _, id := range byOutbox[e.ID] {
			repairs = append(repairs, repair{id, to})
		}
	}
	now := epochMillis(s.now())
	res, err := writeEach(ctx, s.partnerEvents, "reconcile partner deliveries", repairs, func(r repair) (mongo.WriteModel, error) {
		return mongo.NewUpdateOneModel().SetFilter(bson.M{"_id": r.id, "event_status": status.PartnerFailed}).
			SetUpdate(bson.M{"$set": bson.M{"event_status": r.status, "lastUpdatedTime": now}}), nil
	})
	if err != nil {
		return 0, err
	}
	return int(res.ModifiedCount), nil
}

// failedForRetry runs the "Failed Events for Retry" query, narrowed by
// filter, oldest first.
func (s *Store) failedForRetry(ctx context.Context, filter bson.M, limit int) ([]PartnerEvent, error) {
	opts := options.Find().SetSort(bson.D{{Key: "created", Value: 1}})
	if limit > 0 {
		opts.SetLimit(int64(limit))
	}
	filter["event_status"] = status.PartnerFailed
	filter["entity_metadata.resilienceAttemptCount."+strconv.Itoa(MaxPartnerAttempts)] = bson.M{"$exists": false}
	return findAll[PartnerEvent](ctx, s.partnerEvents, filter, opts)
}

// PartnerHistory is seed 000's "Partner Event History" query: the partner's
// events newest first (by created), at most PartnerHistoryLimit.
func (s *Store) PartnerHistory(ctx context.Context, partnerID string) ([]PartnerEvent, error) {
	return findAll[PartnerEvent](ctx, s.partnerEvents, bson.M{"entity_metadata.partnerId": partnerID},
		options.Find().SetSort(bson.D{{Key: "created", Value: -1}}).SetLimit(PartnerHistoryLimit))
}
