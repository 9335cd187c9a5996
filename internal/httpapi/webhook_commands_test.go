package httpapi_test

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/internal/provider"
	"github.com/streamops/streamops/internal/testenv"
)

// TestWebhookStoreCommandsPerDelivery states what a delivery costs in
// store commands, the figure that matters on a real MongoDB: the row is
// inserted already carrying its routing outcome (one command, the dedupe),
// then a partner's document (one command for a partner's first delivery of
// an entity and event type, before the rest: it decides whether the
// delivery is a resend), then the projection and the events side by side,
// and after the publish the published mark: two store round trips before
// the publish, three for a partner's delivery. A redelivery costs the refused insert and the read of
// the stored row.
func TestWebhookStoreCommandsPerDelivery(t *testing.T) {
	tests := []struct {
		name, provider, fixture, secret string
		accepted                        int64
	}{
		{"routed to a workflow: row; projection and events; published mark", "stripe", "stripe-invoice-finalized.json", "whsec_stripe_test", 4},
		{"a partner's delivery: its partner document first", "acme", "acme-order.json", "acme-secret", 5},
		{"no route: row; webhook.received (never published)", "standard", "standard-event.json", "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newWebhookStack(t)
			signed := s.signed(t, tc.provider, testenv.Testdata(t, "webhooks/"+tc.fixture), tc.secret, provider.SignOptions{ID: "msg_commands"})
			body := testenv.Testdata(t, "webhooks/"+tc.fixture)
			deliver := func() int {
				r := httptest.NewRequest(http.MethodPost, signed.URL.Path, bytes.NewReader(body))
				r.Header = signed.Header.Clone()
				w := httptest.NewRecorder()
				s.handler.ServeHTTP(w, r)
				return w.Code
			}
			before := s.Store.Commands()
			require.Equal(t, http.StatusAccepted, deliver())
			assert.Equal(t, tc.accepted, s.Store.Commands()-before, "store commands of the accepted delivery")
			before = s.Store.Commands()
			require.Equal(t, http.StatusOK, deliver())
			assert.Equal(t, int64(2), s.Store.Commands()-before, "store commands of a redelivery")
		})
	}
}
