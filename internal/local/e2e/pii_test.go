package e2e

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/internal/outbox"
)

// delivery is one request a partner endpoint received.
type delivery struct {
	outboxID string // the Standard Webhooks id the relay signs with
	body     []byte
}

// TestWorkflowSubmittedOverTheAPIDeliversNoPersonalData follows seed 004's
// "PII categorically prohibited" for integration_outbox.payload from the
// API to the partner: a workflow whose input records carry an email
// address and a phone number reaches a partner endpoint, and its stored
// outbox entry, without either, the rest of each record kept.
func TestWorkflowSubmittedOverTheAPIDeliversNoPersonalData(t *testing.T) {
	received := make(chan delivery, 8)
	partner := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		select {
		case received <- delivery{outboxID: r.Header.Get("webhook-id"), body: body}:
		default:
		}
	}))
	t.Cleanup(partner.Close)
	s := startWith(t, "", nil, withPartners(t, outbox.Partner{ID: "acme", Name: "acme", URL: partner.URL}))

	var wf struct {
		WorkflowID string `json:"workflowId"`
	}
	body := []byte(`{"name":"Partner Contact Sync","steps":["deliver"],"priority":"high","input":{"deliver":{"target":"acme"},
		"records":[{"id":"r-1","amount":129.90,"sentAtMs":1655292809853,"contact":"jane.doe@example.com",
			"note":"call +1 415 555 0100 or mail jane.doe@example.com"}]}}`)
	require.Equal(t, http.StatusCreated, s.call(http.MethodPost, "/api/workflows", body, nil, &wf))

	var got delivery
	select {
	case got = <-received:
	case <-time.After(60 * time.Second):
		t.Fatalf("workflow %s delivered nothing to the partner", wf.WorkflowID)
	}
	stored, err := s.Store().GetOutboxEntry(context.Background(), got.outboxID)
	require.NoError(t, err)
	for name, payload := range map[string][]byte{"delivered": got.body, "integration_outbox.payload": stored.Payload} {
		for _, pii := range []string{"jane.doe@example.com", "+1 415 555 0100", "415 555 0100"} {
			assert.NotContains(t, string(payload), pii, name)
		}
		assert.JSONEq(t, fmt.Sprintf(`{"workflowId":%q,"workflowName":"Partner Contact Sync","records":[{"id":"r-1","amount":129.90,
			"sentAtMs":1655292809853,"contact":"[redacted:email]","note":"call [redacted:phone] or mail [redacted:email]"}]}`, wf.WorkflowID),
			string(payload), name)
		assert.Contains(t, string(payload), `"sentAtMs":1655292809853`, "%s: a unix-millis number is no phone number", name)
	}
}
