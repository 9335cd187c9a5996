package storetest

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/internal/store"
)

// testPayloadsScrubbed: seed 004 prohibits PII in webhook_events.payload
// and integration_outbox.payload, so the store scrubs both on insert,
// whoever writes them: denied keys whole, personal data inside any other
// string by value, the rest kept. A payload that is not JSON stores
// nothing.
func testPayloadsScrubbed(t *testing.T, open Opener) {
	s := open(t, store.Config{Now: NewClock().Now})
	const sent = `{"id":"evt_1","created":1655292809853,"email":"jane.doe@example.com",
		"data":{"description":"call +1 415 555 0100 or mail jane.doe@example.com","card":"4242 4242 4242 4242","customer":"cus_123"}}`
	const want = `{"id":"evt_1","created":1655292809853,"email":"[REDACTED]",
		"data":{"description":"call [redacted:phone] or mail [redacted:email]","card":"[redacted:card]","customer":"cus_123"}}`

	ev, err := s.InsertWebhookEvent(ctx(t), store.WebhookEvent{Provider: "stripe", ProviderEventID: "evt_1", EventType: "charge.succeeded", Payload: store.JSONDoc(sent)})
	require.NoError(t, err)
	stored, err := s.GetWebhookEvent(ctx(t), ev.EventID)
	require.NoError(t, err)
	assert.JSONEq(t, want, string(stored.Payload), "webhook_events.payload")

	_, err = s.EnqueueOutbox(ctx(t), store.OutboxEntry{OutboxID: "ob-pii", TargetProvider: "acme", EventType: "workflow.records", Payload: store.JSONDoc(sent)})
	require.NoError(t, err)
	entry, err := s.GetOutboxEntry(ctx(t), "ob-pii")
	require.NoError(t, err)
	assert.JSONEq(t, want, string(entry.Payload), "integration_outbox.payload")

	// A workflow's name in a workflow event's envelope names the workflow
	// a partner subscribed by: scrubbed by value, not redacted by its key.
	for i, c := range []struct{ sent, want string }{
		{`{"eventType":"workflow.completed","eventId":"evt-1","payload":{"workflowId":"wf-1","name":"Invoice Sync","email":"jane.doe@example.com"}}`,
			`{"eventType":"workflow.completed","eventId":"evt-1","payload":{"workflowId":"wf-1","name":"Invoice Sync","email":"[REDACTED]"}}`},
		{`{"eventType":"workflow.failed","payload":{"name":"Invoices of jane.doe@example.com"}}`,
			`{"eventType":"workflow.failed","payload":{"name":"Invoices of [redacted:email]"}}`},
		{`{"eventType":"task.created","payload":{"name":"Jane Doe"}}`, `{"eventType":"task.created","payload":{"name":"[REDACTED]"}}`},
		{`{"eventType":"workflow.completed","name":"Jane Doe","payload":{"workflowId":"wf-1"}}`,
			`{"eventType":"workflow.completed","name":"[REDACTED]","payload":{"workflowId":"wf-1"}}`},
	} {
		id := fmt.Sprintf("ob-named-%d", i)
		_, err := s.EnqueueOutbox(ctx(t), store.OutboxEntry{OutboxID: id, TargetProvider: "acme", Payload: store.JSONDoc(c.sent)})
		require.NoError(t, err)
		entry, err := s.GetOutboxEntry(ctx(t), id)
		require.NoError(t, err)
		assert.JSONEq(t, c.want, string(entry.Payload), c.sent)
	}

	for name, write := range map[string]func(context.Context) error{
		"webhook event": func(c context.Context) error {
			_, err := s.InsertWebhookEvent(c, store.WebhookEvent{Provider: "stripe", ProviderEventID: "evt_bad", Payload: store.JSONDoc(`{"email":"jane@example.com"`)})
			return err
		},
		"outbox entry": func(c context.Context) error {
			_, err := s.EnqueueOutbox(c, store.OutboxEntry{OutboxID: "ob-bad", TargetProvider: "acme", Payload: store.JSONDoc(`{"a":1}{"b":2}`)})
			return err
		},
	} {
		err := write(ctx(t))
		assert.ErrorIs(t, err, store.ErrInvalidDocument, name)
		assert.NotContains(t, err.Error(), "jane", name)
	}
	_, err = s.GetWebhookEvent(ctx(t), store.WebhookEventID("stripe", "evt_bad"))
	assert.ErrorIs(t, err, store.ErrNotFound)
	_, err = s.GetOutboxEntry(ctx(t), "ob-bad")
	assert.ErrorIs(t, err, store.ErrNotFound)
}
