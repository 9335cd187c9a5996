package httpapi_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/internal/status"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/testenv"
)

// TestOperatorRequeuesOneDeadLetteredOutboxEntry: POST
// /api/outbox/{id}/requeue is an admin's, applies to a dead_letter entry
// only, and records the caller's principal; every refusal is a JSON
// error naming why, and changes nothing.
func TestOperatorRequeuesOneDeadLetteredOutboxEntry(t *testing.T) {
	for _, c := range []struct {
		name, token, status string // status: the entry's before the call; "" for an unknown id
		want                int
		code, by            string
	}{
		{"admin requeues a dead letter", adminToken, status.OutboxDeadLetter, http.StatusAccepted, "", "admin"},
		{"a named admin is recorded", "alice-token", status.OutboxDeadLetter, http.StatusAccepted, "", "alice"},
		{"partner token", "acme-token", status.OutboxDeadLetter, http.StatusForbidden, "forbidden", ""},
		{"no known token", "nobody", status.OutboxDeadLetter, http.StatusUnauthorized, "unauthenticated", ""},
		{"unknown id", adminToken, "", http.StatusNotFound, "not_found", ""},
		{"pending", adminToken, status.OutboxPending, http.StatusConflict, "status_conflict", ""},
		{"processing", adminToken, status.OutboxProcessing, http.StatusConflict, "status_conflict", ""},
		{"completed", adminToken, status.OutboxCompleted, http.StatusConflict, "status_conflict", ""},
		{"failed: its retry is scheduled", adminToken, status.OutboxFailed, http.StatusConflict, "status_conflict", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := newAPIStack(t) // of its own: a requeued entry is due, and claimed by the next case's setup
			id := "no-such-entry"
			var before store.OutboxEntry
			if c.status != "" {
				id = s.OutboxEntryIn(t, "evt-requeue", "acme", c.status)
				var err error
				before, err = s.Store.GetOutboxEntry(context.Background(), id)
				require.NoError(t, err)
			}
			resp := s.call(t, http.MethodPost, "/api/outbox/"+id+"/requeue", "", "Authorization", "Bearer "+c.token)
			require.Equal(t, c.want, resp.status, resp.body)
			if c.want != http.StatusAccepted {
				assert.Equal(t, c.code, errorCode(resp))
				if c.code == "status_conflict" {
					e := resp.body["error"].(map[string]any)
					assert.Equal(t, c.status, e["status"], "names the entry's status")
					assert.Equal(t, "status", e["field"])
					assert.Equal(t, []any{status.OutboxDeadLetter}, e["allowed"])
				}
				if c.status != "" {
					after, err := s.Store.GetOutboxEntry(context.Background(), id)
					require.NoError(t, err)
					assert.Equal(t, before, after, "a refused requeue changes nothing")
				}
				return
			}
			assert.Equal(t, true, resp.body["requeued"])
			assert.Equal(t, id, resp.body["outboxId"])
			assert.Equal(t, status.OutboxPending, resp.body["status"])
			assert.Equal(t, float64(0), resp.body["attempts"], "a new round")
			assert.Equal(t, float64(store.DefaultMaxAttempts), resp.body["maxAttempts"])
			assert.Equal(t, c.by, resp.body["requeuedBy"], "the caller's principal id")
			assert.Equal(t, float64(1), resp.body["requeues"])
			assert.Equal(t, "HTTP 410", resp.body["lastError"])
			assert.Equal(t, testenv.OutboxTraceparent, resp.body["traceparent"], "the requeue keeps the trace")
			assert.Equal(t, testenv.OutboxTraceparent[3:35], resp.body["traceId"])
			require.Len(t, resp.body["deliveryLog"], 1, "and the delivery log")
			row := resp.body["deliveryLog"].([]any)[0].(map[string]any)
			assert.Equal(t, float64(410), row["status_code"])
			assert.Equal(t, status.OutboxDeadLetter, row["outcome"])
			assert.Equal(t, "b7ad6b7169203331", row["span_id"])
			stored, err := s.Store.GetOutboxEntry(context.Background(), id)
			require.NoError(t, err)
			assert.Equal(t, status.OutboxPending, stored.Status)
			assert.Zero(t, stored.Attempts)
			assert.Equal(t, c.by, stored.RequeuedBy)
			assert.WithinDuration(t, time.Now(), stored.NextAttemptAt, time.Minute, "due now")

			again := s.call(t, http.MethodPost, "/api/outbox/"+id+"/requeue", "", "Authorization", "Bearer "+c.token)
			assert.Equal(t, http.StatusConflict, again.status, "requeued once: it is pending now")
			assert.Equal(t, status.OutboxPending, again.body["error"].(map[string]any)["status"])
		})
	}
}
