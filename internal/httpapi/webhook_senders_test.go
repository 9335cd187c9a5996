package httpapi_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	svix "github.com/svix/svix-webhooks/go"
)

// Deliveries as third-party senders make them, through the HTTP route: the
// sender's own library signs, nothing of ours.

// TestWebhookStandardSenderUsingSvixHeadersIsAccepted signs with svix-go
// and posts with the headers Svix sends (svix-id, svix-timestamp,
// svix-signature); the same message under the spec's webhook-* names is the
// same event, so it is a duplicate.
func TestWebhookStandardSenderUsingSvixHeadersIsAccepted(t *testing.T) {
	s := newWebhookStack(t)
	body := fixture(t, "standard-event.json")
	wh, err := svix.NewWebhook(secrets["WEBHOOK_SECRET_STANDARD"])
	require.NoError(t, err)
	const id = "msg_svix_2KWPBgLlAfxdpx2AI54pPJ85f4W"
	sentAt := time.Now()
	sig, err := wh.Sign(id, sentAt, body)
	require.NoError(t, err)
	post := func(prefix string) response {
		r := httptest.NewRequest(http.MethodPost, "/webhooks/standard", bytes.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set(prefix+"-id", id)
		r.Header.Set(prefix+"-timestamp", strconv.FormatInt(sentAt.Unix(), 10))
		r.Header.Set(prefix+"-signature", sig)
		return s.do(t, r)
	}

	first := post("svix")
	require.Equal(t, http.StatusAccepted, first.status, first.body)
	wev, err := s.Store.GetWebhookEvent(context.Background(), first.body["webhookEventId"].(string))
	require.NoError(t, err)
	assert.Equal(t, id, wev.ProviderEventID, "the event id is the svix-id")
	assert.Equal(t, "contact.created", wev.EventType)

	again := post("webhook")
	assert.Equal(t, http.StatusOK, again.status, again.body)
	assert.Equal(t, map[string]any{"status": "duplicate", "webhookEventId": first.body["webhookEventId"]}, again.body)
}
