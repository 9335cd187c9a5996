package store

import "github.com/streamops/streamops/events"

// WebhookEventID is the deterministic webhook_events.event_id (a UUID, seed
// 004) of a provider's event: every redelivery of it gets the same id.
func WebhookEventID(provider, providerEventID string) string {
	return events.DeriveID("", "webhook", provider, providerEventID)
}

// OutboxID is the deterministic outbox_id of the action that source (an
// event id) triggers at target (a provider or partner): enqueuing it twice
// is a duplicate, not a second delivery.
func OutboxID(sourceEventID, target string) string {
	return events.DeriveID("", "outbox", sourceEventID, target)
}

// PartnerEventID is the deterministic id of a partner event, from seed
// 000's idempotency key (entity_id + event_type) scoped by partner and
// direction.
func PartnerEventID(partnerID, direction, entityID, eventType string) string {
	return events.DeriveID("", "partner", partnerID, direction, entityID, eventType)
}

// SubscriptionOutboxID is the deterministic outbox_id of the delivery of
// event eventID to partner partnerID that the partner's subscriptions
// create (internal/fanout): the event stored again, replayed or swept
// again gives the same id, so it is delivered once. Its namespace is not
// OutboxID's, so it never collides with what a deliver step sends.
func SubscriptionOutboxID(eventID, partnerID string) string {
	return events.DeriveID("", "subscription", eventID, partnerID)
}
