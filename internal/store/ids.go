package store

import (
	"strings"

	"github.com/google/uuid"
)

// idNamespace scopes the name-based (v5) UUIDs the store derives, so the same
// natural key always yields the same id and a retried write collides with
// the first one instead of creating a twin.
var idNamespace = uuid.MustParse("6f1c3e2a-54b7-4d0e-9a51-2c8f0d7b9e13")

func derivedID(parts ...string) string {
	return uuid.NewSHA1(idNamespace, []byte(strings.Join(parts, "\x00"))).String()
}

// WebhookEventID is the deterministic webhook_events.event_id (a UUID, seed
// 004) of a provider's event: every redelivery of it gets the same id.
func WebhookEventID(provider, providerEventID string) string {
	return derivedID("webhook", provider, providerEventID)
}

// OutboxID is the deterministic outbox_id of the action that source (an
// event id) triggers at target (a provider or partner): enqueuing it twice
// is a duplicate, not a second delivery.
func OutboxID(sourceEventID, target string) string {
	return derivedID("outbox", sourceEventID, target)
}

// PartnerEventID is the deterministic id of a partner event, from seed
// 000's idempotency key (entity_id + event_type) scoped by partner and
// direction.
func PartnerEventID(partnerID, direction, entityID, eventType string) string {
	return derivedID("partner", partnerID, direction, entityID, eventType)
}
