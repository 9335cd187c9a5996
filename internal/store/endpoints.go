package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo/options"

	"github.com/streamops/streamops/internal/status"
)

// CollPartnerEndpoints holds the delivery state of each partner endpoint
// (its circuit breaker, an operator's pause), so every relay shares it and
// the admin API can show it.
const CollPartnerEndpoints = "partner_endpoints"

// PartnerEndpoint is the delivery state of one partner endpoint. Each
// writer sets only its own fields (the relay the breaker's, an operator
// the pause's), so none erases another's.
type PartnerEndpoint struct {
	PartnerID           string     `bson:"_id" json:"partnerId"`
	State               string     `bson:"state" json:"state"`
	ConsecutiveFailures int        `bson:"consecutive_failures" json:"consecutiveFailures"`
	OpenedAt            *time.Time `bson:"opened_at,omitempty" json:"openedAt,omitempty"`
	OpenUntil           *time.Time `bson:"open_until,omitempty" json:"openUntil,omitempty"`
	LastError           string     `bson:"last_error,omitempty" json:"lastError,omitempty"`
	LastSuccessAt       *time.Time `bson:"last_success_at,omitempty" json:"lastSuccessAt,omitempty"`
	LastFailureAt       *time.Time `bson:"last_failure_at,omitempty" json:"lastFailureAt,omitempty"`
	UpdatedAt           time.Time  `bson:"updated_at" json:"updatedAt,omitzero"`
	// FailingSince is when the partner's current run of failed deliveries
	// began (its first failure after a success, or its first attempt
	// ever failing); nil while the last one succeeded. FailingWarned is
	// the highest share of the disable period (50, 90) a partner.failing
	// event reported for this run, so a restarted relay does not report
	// it again. Both are the breaker's fields (SaveBreaker).
	FailingSince  *time.Time `bson:"failing_since,omitempty" json:"failingSince,omitempty"`
	FailingWarned int        `bson:"failing_warned,omitempty" json:"failingWarned,omitempty"`

	// HoldUntil is when the partner's own hold ends: it answered 429 or
	// 503 with Retry-After (HoldStatusCode, HoldRetryAfter its header), and
	// nothing is sent to it until then (HoldPartner).
	HoldUntil      *time.Time `bson:"hold_until,omitempty" json:"holdUntil,omitempty"`
	HoldStatusCode int        `bson:"hold_status_code,omitempty" json:"holdStatusCode,omitempty"`
	HoldRetryAfter string     `bson:"hold_retry_after,omitempty" json:"holdRetryAfter,omitempty"`
	// RateNextAt is the partner's next free send slot under its rate
	// limit (ReserveSendSlot).
	RateNextAt *time.Time `bson:"rate_next_at,omitempty" json:"rateNextAt,omitempty"`
	// InFlight are the leases of the sends in flight to the partner under
	// its maxInFlight (AcquireInFlight); expired ones are ignored.
	InFlight []InFlightLease `bson:"in_flight,omitempty" json:"inFlight,omitempty"`
	// Paused is an operator's hold on the partner's deliveries
	// (PausePartner): nothing is sent to it until ResumePartner. PausedAt,
	// PausedBy and PauseReason describe the latest pause, ResumedAt and
	// ResumedBy the latest resume; they stay after the state changes.
	Paused bool `bson:"paused,omitempty" json:"paused"`
	// Disabled mirrors the stored partner's disabled (SetPartnerDisabled,
	// DisablePartnerOnce), so a claim leaves a disabled partner's entries
	// waiting in the same read as a paused one's.
	Disabled    bool       `bson:"disabled,omitempty" json:"disabled,omitempty"`
	PausedAt    *time.Time `bson:"paused_at,omitempty" json:"pausedAt,omitempty"`
	PausedBy    string     `bson:"paused_by,omitempty" json:"pausedBy,omitempty"`
	PauseReason string     `bson:"pause_reason,omitempty" json:"pauseReason,omitempty"`
	ResumedAt   *time.Time `bson:"resumed_at,omitempty" json:"resumedAt,omitempty"`
	ResumedBy   string     `bson:"resumed_by,omitempty" json:"resumedBy,omitempty"`
}

// PartnerEndpoints loads the stored state of the given partners in one
// query; a partner never seen is absent from the map (closed).
func (s *Store) PartnerEndpoints(ctx context.Context, partnerIDs ...string) (map[string]PartnerEndpoint, error) {
	return findByIDs(ctx, s.partnerEndpoints, "partner endpoints", partnerIDs, func(ep PartnerEndpoint) string { return ep.PartnerID })
}

// breakerUpdate sets ep's breaker fields, and only those, as of now.
func breakerUpdate(ep PartnerEndpoint, now time.Time) bson.M {
	set := bson.M{"state": ep.State, "consecutive_failures": ep.ConsecutiveFailures, "updated_at": now}
	unset := bson.M{}
	setOrUnset(set, unset, "opened_at", ep.OpenedAt, ep.OpenedAt != nil)
	setOrUnset(set, unset, "open_until", ep.OpenUntil, ep.OpenUntil != nil)
	setOrUnset(set, unset, "last_error", ep.LastError, ep.LastError != "")
	setOrUnset(set, unset, "last_success_at", ep.LastSuccessAt, ep.LastSuccessAt != nil)
	setOrUnset(set, unset, "last_failure_at", ep.LastFailureAt, ep.LastFailureAt != nil)
	setOrUnset(set, unset, "failing_since", ep.FailingSince, ep.FailingSince != nil)
	setOrUnset(set, unset, "failing_warned", ep.FailingWarned, ep.FailingWarned != 0)
	update := bson.M{"$set": set}
	if len(unset) > 0 {
		update["$unset"] = unset
	}
	return update
}

// SaveBreaker stores ep's breaker state, its fields alone (so a relay's
// save never erases a pause, a hold or any field another writer owns),
// only while the stored opening is still openedAt (nil: not open, or no
// endpoint stored yet), and reports whether it did.
// It is a compare-and-set on the breaker's opening: of relays racing to
// open a breaker, to open it again after a failed probe or to close it,
// exactly one changes it, and only that one reports the transition
// (partner.breaker.opened, partner.breaker.closed). A relay whose save is
// refused learns that another one moved the breaker since it loaded it.
func (s *Store) SaveBreaker(ctx context.Context, ep PartnerEndpoint, openedAt *time.Time) (applied bool, err error) {
	if ep.PartnerID == "" {
		return false, errors.New("store: save breaker: no partner id")
	}
	filter := bson.M{"_id": ep.PartnerID, "opened_at": nil}
	if openedAt != nil {
		filter["opened_at"] = bsonTime(*openedAt)
	}
	// With upsert, a missing endpoint is created; a guard that fails on a
	// stored one collides with it on _id, which means refused.
	res, err := s.partnerEndpoints.UpdateOne(ctx, filter, breakerUpdate(ep, s.now()), options.Update().SetUpsert(true))
	if isDuplicate(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("store: save breaker %s: %w", ep.PartnerID, normalise(err))
	}
	return res.MatchedCount+res.UpsertedCount > 0, nil
}

// PausePartner holds partner id's deliveries: the relays send nothing to
// it until ResumePartner, and its entries wait as they are. by is the
// operator's principal id, reason an optional note. One conditional
// upsert decides, so pausing a paused partner changes nothing (changed is
// false, the first pause's time, operator and reason stay) and two
// operators pausing at once make one pause. It returns the endpoint as it
// is after.
func (s *Store) PausePartner(ctx context.Context, id, by, reason string) (ep PartnerEndpoint, changed bool, err error) {
	now := bsonTime(s.now())
	set := bson.M{"paused": true, "paused_at": now, "paused_by": by, "updated_at": now}
	unset := bson.M{}
	setOrUnset(set, unset, "pause_reason", reason, reason != "")
	update := bson.M{"$set": set, "$setOnInsert": bson.M{"state": status.BreakerClosed, "consecutive_failures": 0}}
	if len(unset) > 0 {
		update["$unset"] = unset
	}
	return s.changePause(ctx, "pause", id, bson.M{"paused": bson.M{"$ne": true}}, update, true)
}

// ResumePartner ends partner id's pause: the relays deliver its waiting
// entries again, oldest first. by is the operator's principal id. Resuming
// a partner that is not paused changes nothing (changed is false). The
// endpoint returned keeps the ended pause's PausedAt, PausedBy and
// PauseReason beside ResumedAt and ResumedBy.
func (s *Store) ResumePartner(ctx context.Context, id, by string) (ep PartnerEndpoint, changed bool, err error) {
	now := bsonTime(s.now())
	return s.changePause(ctx, "resume", id, bson.M{"paused": true},
		bson.M{"$set": bson.M{"paused": false, "resumed_at": now, "resumed_by": by, "updated_at": now}}, false)
}

// changePause applies update to partner id's endpoint when guard matches
// it (with upsert, a missing one is created: a guard that fails on a
// stored endpoint then collides with it on _id, which means unchanged),
// then loads the endpoint; one never stored is a closed one.
func (s *Store) changePause(ctx context.Context, what, id string, guard, update bson.M, upsert bool) (PartnerEndpoint, bool, error) {
	if id == "" {
		return PartnerEndpoint{}, false, fmt.Errorf("store: %s partner: no partner id", what)
	}
	filter := bson.M{"_id": id}
	for k, v := range guard {
		filter[k] = v
	}
	res, err := s.partnerEndpoints.UpdateOne(ctx, filter, update, options.Update().SetUpsert(upsert))
	if err != nil && !isDuplicate(err) {
		return PartnerEndpoint{}, false, fmt.Errorf("store: %s partner %s: %w", what, id, normalise(err))
	}
	changed := err == nil && res.ModifiedCount+res.UpsertedCount > 0
	ep, err := getByID[PartnerEndpoint](ctx, s.partnerEndpoints, id)
	if errors.Is(err, ErrNotFound) {
		return PartnerEndpoint{PartnerID: id, State: status.BreakerClosed}, changed, nil
	}
	if err != nil {
		return PartnerEndpoint{}, false, fmt.Errorf("store: load partner endpoint %s: %w", id, err)
	}
	return ep, changed, nil
}

// PartnerPaused reports whether partner id is paused now: one read of its
// endpoint's pause flag by _id, cheap enough for the relay to ask before
// each send.
func (s *Store) PartnerPaused(ctx context.Context, id string) (bool, error) {
	ep, err := findOne[PartnerEndpoint](ctx, s.partnerEndpoints, bson.M{"_id": id},
		options.FindOne().SetProjection(bson.M{"paused": 1}))
	if errors.Is(err, ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("store: is partner %s paused: %w", id, err)
	}
	return ep.Paused, nil
}

// BlockedPartners lists the partners whose deliveries must not go out at
// now, sorted: paused ones, and those whose own hold (HoldPartner) lasts
// beyond now. ClaimDue leaves their entries waiting.
func (s *Store) BlockedPartners(ctx context.Context, now time.Time) ([]string, error) {
	ids, _, err := s.blocked(ctx, now)
	return ids, err
}

// blocked is BlockedPartners with when each hold among them ends (a
// paused or disabled partner's block has no end).
func (s *Store) blocked(ctx context.Context, now time.Time) ([]string, map[string]time.Time, error) {
	now = bsonTime(now)
	docs, err := findAll[PartnerEndpoint](ctx, s.partnerEndpoints,
		bson.M{"$or": bson.A{bson.M{"paused": true}, bson.M{"disabled": true}, bson.M{"hold_until": bson.M{"$gt": now}}}},
		options.Find().SetProjection(bson.M{"_id": 1, "paused": 1, "hold_until": 1}).SetSort(bson.D{{Key: "_id", Value: 1}}))
	if err != nil {
		return nil, nil, fmt.Errorf("store: blocked partners: %w", err)
	}
	ids := make([]string, len(docs))
	holds := map[string]time.Time{}
	for i, d := range docs {
		ids[i] = d.PartnerID
		if !d.Paused && !d.Disabled && d.HoldUntil != nil {
			holds[d.PartnerID] = *d.HoldUntil
		}
	}
	return ids, holds, nil
}

// notBlocked narrows filter, a query of due outbox entries, to those whose
// partner is not blocked at now (BlockedPartners), and says when the
// holds among the blocked end.
func (s *Store) notBlocked(ctx context.Context, filter bson.M, now time.Time) (bson.M, map[string]time.Time, error) {
	blocked, holds, err := s.blocked(ctx, now)
	if err != nil || len(blocked) == 0 {
		return filter, holds, err
	}
	out := bson.M{"target_provider": bson.M{"$nin": blocked}}
	for k, v := range filter {
		out[k] = v
	}
	return out, holds, nil
}

// Backlog is what waits for delivery to one partner: entries pending,
// failed (their retry scheduled) or processing (claimed), and the created_at
// of the oldest of them (nil when none waits).
type Backlog struct {
	Count           int
	OldestCreatedAt *time.Time
}

// PartnerBacklog reads each partner's Backlog: per partner, one count and
// one read of the oldest entry (both engines run it; lungo has no
// aggregation). A partner with nothing waiting has a zero Backlog.
func (s *Store) PartnerBacklog(ctx context.Context, partnerIDs ...string) (map[string]Backlog, error) {
	waiting := bson.A{status.OutboxPending, status.OutboxFailed, status.OutboxProcessing}
	out := make(map[string]Backlog, len(partnerIDs))
	for _, id := range partnerIDs {
		if _, done := out[id]; done {
			continue
		}
		filter := bson.M{"status": bson.M{"$in": waiting}, "target_provider": id}
		n, err := s.outbox.CountDocuments(ctx, filter)
		if err != nil {
			return nil, fmt.Errorf("store: backlog of partner %s: %w", id, normalise(err))
		}
		b := Backlog{Count: int(n)}
		if n > 0 {
			e, err := findOne[OutboxEntry](ctx, s.outbox, filter, options.FindOne().
				SetSort(bson.D{{Key: "created_at", Value: 1}, {Key: "_id", Value: 1}}).SetProjection(bson.M{"created_at": 1}))
			switch {
			case err == nil:
				b.OldestCreatedAt = &e.CreatedAt
			case !errors.Is(err, ErrNotFound): // delivered since the count: none older
				return nil, fmt.Errorf("store: oldest waiting entry of partner %s: %w", id, err)
			}
		}
		out[id] = b
	}
	return out, nil
}
