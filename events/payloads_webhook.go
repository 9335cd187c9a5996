package events

// WebhookReceivedPayload is the payload of webhook.received: a provider
// webhook verified and stored as a webhook_event (seed 004). It points at the
// stored row rather than copying the provider's body, which may hold PII.
type WebhookReceivedPayload struct {
	Provider        string `json:"provider"`        // e.g. "stripe"
	ProviderEventID string `json:"providerEventId"` // the provider's id; with Provider, the dedupe key
	// ProviderEventType is the JSON "eventType": the type as the provider
	// classifies it (e.g. "invoice.finalized"), not the envelope's Type.
	ProviderEventType string `json:"eventType"`
	WebhookEventID    string `json:"webhookEventId"` // webhook_events.event_id, a UUID
}

// EventType is WebhookReceived.
func (WebhookReceivedPayload) EventType() Type { return WebhookReceived }
