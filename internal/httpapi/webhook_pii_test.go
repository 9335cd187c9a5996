package httpapi_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/provider"
)

// TestWebhookStripePayloadWithPIIInFreeTextIsStoredWithoutIt sends issue
// 23's Stripe webhook (an email address under a key no denylist names, and
// with a phone number in free text) through the webhook handler: seed 004
// prohibits PII in webhook_events.payload, so neither is stored, nor
// reaches the workflow its route starts, and the rest is kept as sent.
func TestWebhookStripePayloadWithPIIInFreeTextIsStoredWithoutIt(t *testing.T) {
	s := newWebhookStack(t)
	body := []byte(`{"id":"evt_1PiiIssue23","object":"event","type":"invoice.payment_failed","created":1718452800,
		"data":{"object":{"id":"in_1PiiIssue23","object":"invoice","amount_due":129900,"customer":"cus_123",
		"recipient":"jane.doe@example.com","description":"call +1 415 555 0100 or mail jane.doe@example.com",
		"metadata":{"sent_at_ms":"1655292809853","due":"2024-06-15"}}}}`)

	resp := s.do(t, s.signed(t, "stripe", body, "whsec_stripe_test", provider.SignOptions{}))

	require.Equal(t, http.StatusAccepted, resp.status, resp.body)
	wev, err := s.Store.GetWebhookEvent(context.Background(), resp.body["webhookEventId"].(string))
	require.NoError(t, err)
	assert.JSONEq(t, `{"id":"evt_1PiiIssue23","object":"event","type":"invoice.payment_failed","created":1718452800,
		"data":{"object":{"id":"in_1PiiIssue23","object":"invoice","amount_due":129900,"customer":"cus_123",
		"recipient":"[redacted:email]","description":"call [redacted:phone] or mail [redacted:email]",
		"metadata":{"sent_at_ms":"1655292809853","due":"2024-06-15"}}}}`, string(wev.Payload))
	workflows := s.Envelopes(t, events.TopicWorkflows)
	require.Len(t, workflows, 1, "invoice.* routes to the Invoice Sync workflow")
	var created events.WorkflowCreatedPayload
	require.NoError(t, json.Unmarshal(workflows[0].Payload, &created))
	assert.Contains(t, string(created.Input), "in_1PiiIssue23", "the workflow's input is the stored payload")
	for _, pii := range []string{"jane.doe@example.com", "415 555 0100"} {
		assert.NotContains(t, string(wev.Payload), pii)
		assert.NotContains(t, string(workflows[0].Payload), pii)
	}
}
