package e2e

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/internal/local"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/testenv"
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
	s := startWithPartner(t, "acme", partner.URL)

	var wf struct {
		WorkflowID string `json:"workflowId"`
	}
	body := []byte(`{"name":"Partner Contact Sync","steps":["deliver"],"priority":"high","input":{"deliver":{"target":"acme"},
		"records":[{"id":"r-1","amount":129.90,"sentAtMs":1655292809853,"contact":"jane.doe@example.com",
			"note":"call +1 415 555 0100 or mail jane.doe@example.com"}]}}`)
	require.Equal(t, http.StatusCreated, s.Call(t, http.MethodPost, "/api/workflows", body, nil, &wf))

	var got delivery
	select {
	case got = <-received:
	case <-time.After(60 * time.Second):
		t.Fatalf("workflow %s delivered nothing to the partner", wf.WorkflowID)
	}
	stored, err := s.store.GetOutboxEntry(context.Background(), got.outboxID)
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

// localStack is a running local stack: its API and its store.
type localStack struct {
	testenv.API
	store *store.Store
}

// startWithPartner starts a local stack whose partners file names one
// partner (id, delivering to url), stopped when the test ends.
func startWithPartner(t *testing.T, id, url string) *localStack {
	t.Helper()
	dir := t.TempDir()
	partners := filepath.Join(dir, "partners.json")
	require.NoError(t, os.WriteFile(partners, fmt.Appendf(nil, `[{"id":%q,"name":%q,"url":%q}]`, id, id, url), 0o600))
	env := map[string]string{"PARTNER_SECRET_" + strings.ToUpper(id): "whsec_cGlpLWUyZS1wYXJ0bmVy"}
	db := engineFor(t, dir)
	logs := &testenv.Output{}
	s, err := local.Start(context.Background(), local.Config{
		DataDir: filepath.Join(dir, "data"), HTTPAddr: "127.0.0.1:0", KafkaAddr: "127.0.0.1:0", MongoURI: db.URI, Database: db.Database,
		ScheduleInterval: interval, AdminToken: adminToken, PartnersFile: partners, LogOutput: logs,
		Getenv: func(k string) string { return env[k] },
	})
	require.NoError(t, err)
	t.Cleanup(func() {
		_ = s.Shutdown(context.Background())
		if t.Failed() {
			t.Logf("last log lines of the stack:\n%s", logs.Tail(40))
		}
	})
	return &localStack{API: testenv.API{URL: s.URL(), Token: adminToken}, store: s.Store()}
}
