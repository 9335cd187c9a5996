package store

import (
	"context"
	"time"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"
)

// CollPartnerEndpoints holds the circuit breaker state of each partner
// endpoint, so every relay shares it and the admin API can show it.
const CollPartnerEndpoints = "partner_endpoints"

// PartnerEndpoint is the delivery health of one partner endpoint.
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
}

// PartnerEndpoints loads the stored state of the given partners in one
// query; a partner never seen is absent from the map (closed).
func (s *Store) PartnerEndpoints(ctx context.Context, partnerIDs ...string) (map[string]PartnerEndpoint, error) {
	return findByIDs(ctx, s.partnerEndpoints, "partner endpoints", partnerIDs, func(ep PartnerEndpoint) string { return ep.PartnerID })
}

// SavePartnerEndpoints stores endpoints' breaker states with one bulk
// upsert that sets the breaker fields only, so a hold, a rate slot or an
// in-flight lease written meanwhile stays. Concurrent relays may race;
// the last write wins, which at worst delays opening or closing a breaker
// by one batch.
func (s *Store) SavePartnerEndpoints(ctx context.Context, eps ...PartnerEndpoint) error {
	now := s.now()
	_, err := writeEach(ctx, s.partnerEndpoints, "save partner endpoints", eps, func(ep PartnerEndpoint) (mongo.WriteModel, error) {
		set := bson.M{"state": ep.State, "consecutive_failures": ep.ConsecutiveFailures, "updated_at": now}
		unset := bson.M{}
		for name, v := range map[string]*time.Time{"opened_at": ep.OpenedAt, "open_until": ep.OpenUntil,
			"last_success_at": ep.LastSuccessAt, "last_failure_at": ep.LastFailureAt} {
			if v != nil {
				set[name] = *v
			} else {
				unset[name] = ""
			}
		}
		if ep.LastError != "" {
			set["last_error"] = ep.LastError
		} else {
			unset["last_error"] = ""
		}
		update := bson.M{"$set": set}
		if len(unset) > 0 {
			update["$unset"] = unset
		}
		return mongo.NewUpdateOneModel().SetFilter(bson.M{"_id": ep.PartnerID}).SetUpdate(update).SetUpsert(true), nil
	})
	return err
}
