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
}

// PartnerEndpoints loads the stored state of the given partners in one
// query; a partner never seen is absent from the map (closed).
func (s *Store) PartnerEndpoints(ctx context.Context, partnerIDs ...string) (map[string]PartnerEndpoint, error) {
	return findByIDs(ctx, s.partnerEndpoints, "partner endpoints", partnerIDs, func(ep PartnerEndpoint) string { return ep.PartnerID })
}

// SavePartnerEndpoints stores endpoint states with one bulk upsert.
// Concurrent relays may race; the last write wins, which at worst delays
// opening or closing a breaker by one batch.
func (s *Store) SavePartnerEndpoints(ctx context.Context, eps ...PartnerEndpoint) error {
	now := s.now()
	_, err := writeEach(ctx, s.partnerEndpoints, "save partner endpoints", eps, func(ep PartnerEndpoint) (mongo.WriteModel, error) {
		ep.UpdatedAt = now
		return mongo.NewReplaceOneModel().SetFilter(bson.M{"_id": ep.PartnerID}).SetReplacement(ep).SetUpsert(true), nil
	})
	return err
}
