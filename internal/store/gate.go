package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/mongo/options"

	"github.com/streamops/streamops/internal/status"
)

// The partner gate: what every relay instance shares about how much may
// be sent to a partner now. A partner's hold (it answered 429/503 with
// Retry-After), its rate limit's next free slot and its in-flight leases
// live in its partner_endpoints document, and each is changed by one
// conditional update on plain filters (no $expr, which the embedded
// engine lacks), so two relays never take the same slot or lease.

// InFlightLease is one send in flight to a partner: it holds one of the
// partner's maxInFlight places until it is released or Until passes (its
// relay died mid-send).
type InFlightLease struct {
	Token string    `bson:"token" json:"token"`
	Until time.Time `bson:"until" json:"until"`
}

// gateRounds bounds how often a compare-and-set is tried again when
// concurrent relays changed the document in between.
const gateRounds = 32

// ErrGateContention is returned when a compare-and-set on a partner's
// gate lost gateRounds times in a row.
var ErrGateContention = errors.New("store: partner gate contended")

// Hold is a partner's request to wait: until when, and the answer that
// asked for it.
type Hold struct {
	Until      time.Time
	StatusCode int
	RetryAfter string
}

// HoldPartner records that partnerID asked us to wait until h.Until. A
// hold only ever moves later (the later of the current one and h), with
// one conditional update. started reports whether no hold was in force at
// now before it: the start of a hold, which is announced once.
func (s *Store) HoldPartner(ctx context.Context, partnerID string, h Hold, now time.Time) (started bool, err error) {
	until, now := bsonTime(h.Until), bsonTime(now)
	if err := s.ensureEndpoint(ctx, partnerID, now); err != nil {
		return false, err
	}
	var before PartnerEndpoint
	err = s.partnerEndpoints.FindOneAndUpdate(ctx,
		bson.M{"_id": partnerID, "$or": bson.A{bson.M{"hold_until": bson.M{"$exists": false}}, bson.M{"hold_until": bson.M{"$lt": until}}}},
		bson.M{"$set": bson.M{"hold_until": until, "hold_status_code": h.StatusCode, "hold_retry_after": h.RetryAfter}},
		options.FindOneAndUpdate().SetReturnDocument(options.Before)).Decode(&before)
	switch err = normalise(err); {
	case errors.Is(err, ErrNotFound): // a hold as late or later is in force
		return false, nil
	case err != nil:
		return false, fmt.Errorf("store: hold partner %s: %w", partnerID, err)
	}
	return before.HoldUntil == nil || !before.HoldUntil.After(now), nil
}

// newEndpointFields are the breaker fields of a partner endpoint document
// a gate write creates: a closed breaker.
func newEndpointFields(now time.Time) bson.M {
	return bson.M{"state": status.BreakerClosed, "consecutive_failures": 0, "updated_at": now}
}

// SendSlot is what ReserveSendSlot found: the slot (At), whether it is
// now the caller's, and the partner's hold when one is in force (then
// nothing was reserved).
type SendSlot struct {
	At        time.Time
	Reserved  bool
	HoldUntil *time.Time
}

// ReserveSendSlot takes partnerID's next send slot under a rate limit of
// one send per interval: slot = max(now, rate_next_at), and rate_next_at
// becomes slot+interval, with a compare-and-set on rate_next_at so two
// relays never take the same slot. A slot more than horizon away is not
// reserved (the caller defers to it), nor is any while the partner is
// held.
func (s *Store) ReserveSendSlot(ctx context.Context, partnerID string, now time.Time, interval, horizon time.Duration) (SendSlot, error) {
	now = bsonTime(now)
	for range gateRounds {
		ep, err := getByID[PartnerEndpoint](ctx, s.partnerEndpoints, partnerID)
		if errors.Is(err, ErrNotFound) {
			if err := s.ensureEndpoint(ctx, partnerID, now); err != nil {
				return SendSlot{}, err
			}
			continue
		}
		if err != nil {
			return SendSlot{}, fmt.Errorf("store: read partner %s gate: %w", partnerID, err)
		}
		slot := SendSlot{At: now}
		if ep.HoldUntil != nil && ep.HoldUntil.After(now) {
			slot.HoldUntil = ep.HoldUntil
			return slot, nil
		}
		if ep.RateNextAt != nil && ep.RateNextAt.After(now) {
			slot.At = *ep.RateNextAt
		}
		if slot.At.Sub(now) > horizon {
			return slot, nil
		}
		filter := bson.M{"_id": partnerID, "rate_next_at": bson.M{"$exists": false}}
		if ep.RateNextAt != nil {
			filter["rate_next_at"] = *ep.RateNextAt
		}
		res, err := s.partnerEndpoints.UpdateOne(ctx, filter, bson.M{"$set": bson.M{"rate_next_at": bsonTime(slot.At.Add(interval))}})
		if err != nil {
			return SendSlot{}, fmt.Errorf("store: reserve partner %s send slot: %w", partnerID, normalise(err))
		}
		if res.MatchedCount == 1 {
			slot.Reserved = true
			return slot, nil
		}
	}
	return SendSlot{}, fmt.Errorf("%w: %s send slot", ErrGateContention, partnerID)
}

// ensureEndpoint creates partnerID's endpoint document (a closed breaker)
// if it has none. It is a one-model bulk write so that a concurrent
// creation is a duplicate on either engine, which is fine.
func (s *Store) ensureEndpoint(ctx context.Context, partnerID string, now time.Time) error {
	_, err := s.partnerEndpoints.BulkWrite(ctx, []mongo.WriteModel{mongo.NewUpdateOneModel().
		SetFilter(bson.M{"_id": partnerID}).SetUpdate(bson.M{"$setOnInsert": newEndpointFields(now)}).SetUpsert(true)})
	if _, other := duplicateIndexes(err); other != nil {
		return fmt.Errorf("store: create partner %s endpoint: %w", partnerID, normalise(other))
	}
	return nil
}

// AcquireInFlight takes one of partnerID's limit in-flight places for the
// lease token until until: it pushes the lease only while fewer than
// limit are held (the array has no element limit-1), one conditional
// update; when that fails it drops the leases expired at now (creating
// the partner's document if there is none) and tries once more. ok is
// false when limit sends are in flight.
func (s *Store) AcquireInFlight(ctx context.Context, partnerID string, limit int, token string, now, until time.Time) (ok bool, err error) {
	if limit < 1 {
		return false, fmt.Errorf("store: in-flight limit must be at least 1, got %d", limit)
	}
	now = bsonTime(now)
	lease := InFlightLease{Token: token, Until: bsonTime(until)}
	push := func() (bool, error) {
		res, err := s.partnerEndpoints.UpdateOne(ctx,
			bson.M{"_id": partnerID, fmt.Sprintf("in_flight.%d", limit-1): bson.M{"$exists": false}},
			bson.M{"$push": bson.M{"in_flight": lease}})
		if err != nil {
			return false, fmt.Errorf("store: acquire partner %s in-flight lease: %w", partnerID, normalise(err))
		}
		return res.MatchedCount == 1, nil
	}
	if ok, err := push(); ok || err != nil {
		return ok, err
	}
	res, err := s.partnerEndpoints.UpdateOne(ctx, bson.M{"_id": partnerID},
		bson.M{"$pull": bson.M{"in_flight": bson.D{{Key: "until", Value: bson.D{{Key: "$lte", Value: now}}}}}})
	if err != nil {
		return false, fmt.Errorf("store: prune partner %s in-flight leases: %w", partnerID, normalise(err))
	}
	if res.MatchedCount == 0 { // the partner has no document yet
		if err := s.ensureEndpoint(ctx, partnerID, now); err != nil {
			return false, err
		}
	}
	// Pushed again even when nothing expired: the first push may have
	// failed only because the partner's document did not exist yet, and
	// another relay created it (with a place still free) before the prune.
	// The push's own condition keeps the limit.
	return push()
}

// ReleaseInFlight gives back the in-flight place of lease token.
func (s *Store) ReleaseInFlight(ctx context.Context, partnerID, token string) error {
	_, err := s.partnerEndpoints.UpdateOne(ctx, bson.M{"_id": partnerID},
		bson.M{"$pull": bson.M{"in_flight": bson.D{{Key: "token", Value: token}}}})
	if err != nil {
		return fmt.Errorf("store: release partner %s in-flight lease: %w", partnerID, normalise(err))
	}
	return nil
}
