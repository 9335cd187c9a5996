package httpapi_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/internal/status"
	"github.com/streamops/streamops/internal/store"
)

// TestOperatorResendsOnlyACompletedEntry: POST /api/outbox/{id}/resend
// starts a new round of a completed entry, by the caller, keeping its
// log; every other status is 409 naming it, and changes nothing.
func TestOperatorResendsOnlyACompletedEntry(t *testing.T) {
	for _, c := range []struct {
		status string // "" for an unknown id
		want   int
		code   string
	}{
		{status.OutboxCompleted, http.StatusAccepted, ""},
		{status.OutboxPending, http.StatusConflict, "status_conflict"},
		{status.OutboxProcessing, http.StatusConflict, "status_conflict"},
		{status.OutboxFailed, http.StatusConflict, "status_conflict"},
		{status.OutboxDeadLetter, http.StatusConflict, "status_conflict"},
		{"", http.StatusNotFound, "not_found"},
	} {
		t.Run(c.status, func(t *testing.T) {
			s := newAPIStack(t)
			ctx := context.Background()
			id := "no-such-entry"
			var before store.OutboxEntry
			if c.status != "" {
				id = s.OutboxEntryIn(t, "evt-resend", "acme", c.status)
				var err error
				before, err = s.Store.GetOutboxEntry(ctx, id)
				require.NoError(t, err)
			}
			resp := s.call(t, http.MethodPost, "/api/outbox/"+id+"/resend", "", "Authorization", "Bearer alice-token")
			require.Equal(t, c.want, resp.status, resp.body)
			if c.want != http.StatusAccepted {
				assert.Equal(t, c.code, errorCode(resp))
				if c.status != "" {
					e := resp.body["error"].(map[string]any)
					assert.Equal(t, c.status, e["status"])
					assert.Equal(t, []any{status.OutboxCompleted}, e["allowed"])
					after, err := s.Store.GetOutboxEntry(ctx, id)
					require.NoError(t, err)
					assert.Equal(t, before, after, "a refused resend changes nothing")
				}
				return
			}
			after, err := s.Store.GetOutboxEntry(ctx, id)
			require.NoError(t, err)
			assert.Equal(t, status.OutboxPending, after.Status)
			assert.Zero(t, after.Attempts, "a new round")
			assert.Nil(t, after.CompletedAt)
			assert.Equal(t, 1, after.Resends)
			assert.Equal(t, "alice", after.ResentBy)
			assert.NotNil(t, after.ResentAt)
			assert.Equal(t, before.DeliveryLog, after.DeliveryLog, "the log is kept")
		})
	}
}

// TestBulkRequeueCountsFiltersAndConfirms: POST
// /api/partners/{partnerId}/requeue counts what its filter matches
// without confirm, requeues exactly that with the count confirmed, and
// refuses a bad value naming its field, changing nothing.
func TestBulkRequeueCountsFiltersAndConfirms(t *testing.T) {
	s := newAPIStack(t)
	ctx := context.Background()
	var dead []string
	var created []time.Time
	for i, typ := range []string{"OR_MGMT", "OR_MGMT", "OR_OTHER"} {
		time.Sleep(5 * time.Millisecond) // distinct created_at milliseconds, for since/until
		id := s.OutboxEntryOfType(t, fmt.Sprintf("evt-bulk-%d", i), "acme", typ, status.OutboxDeadLetter)
		e, err := s.Store.GetOutboxEntry(ctx, id)
		require.NoError(t, err)
		dead, created = append(dead, id), append(created, e.CreatedAt)
	}
	s.OutboxEntryIn(t, "evt-bulk-done", "acme", status.OutboxCompleted)
	s.OutboxEntryIn(t, "evt-bulk-beta", "beta", status.OutboxDeadLetter)
	rfc := func(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

	for _, c := range []struct {
		name, body string
		want       int
		matched    int    // 200: the count
		field      string // 400: the field named
	}{
		{"every dead letter of the partner", `{}`, http.StatusOK, 3, ""},
		{"no body at all", ``, http.StatusOK, 3, ""},
		{"status dead_letter spelled out", `{"status":"dead_letter"}`, http.StatusOK, 3, ""},
		{"by event type", `{"eventType":"OR_MGMT"}`, http.StatusOK, 2, ""},
		{"an event type none has", `{"eventType":"NOPE"}`, http.StatusOK, 0, ""},
		{"since the second", `{"since":"` + rfc(created[1]) + `"}`, http.StatusOK, 2, ""},
		{"until the first", `{"until":"` + rfc(created[0]) + `"}`, http.StatusOK, 1, ""},
		{"the second alone", `{"since":"` + rfc(created[1]) + `","until":"` + rfc(created[1]) + `"}`, http.StatusOK, 1, ""},
		{"status completed is resent, not requeued", `{"status":"completed"}`, http.StatusBadRequest, 0, "status"},
		{"status unknown", `{"status":"bogus"}`, http.StatusBadRequest, 0, "status"},
		{"since not a time", `{"since":"yesterday"}`, http.StatusBadRequest, 0, "since"},
		{"until not a time", `{"until":"2026-13-01T00:00:00Z"}`, http.StatusBadRequest, 0, "until"},
		{"until before since", `{"since":"2026-01-02T00:00:00Z","until":"2026-01-01T00:00:00Z"}`, http.StatusBadRequest, 0, "until"},
		{"negative confirm", `{"confirm":-1}`, http.StatusBadRequest, 0, "confirm"},
		{"confirm not a number", `{"confirm":"3"}`, http.StatusBadRequest, 0, "confirm"},
		{"an unknown field", `{"event_type":"OR_MGMT"}`, http.StatusBadRequest, 0, ""},
		{"stale confirm", `{"confirm":2}`, http.StatusConflict, 3, "confirm"},
	} {
		t.Run(c.name, func(t *testing.T) {
			resp := s.call(t, http.MethodPost, "/api/partners/acme/requeue", c.body)
			require.Equal(t, c.want, resp.status, resp.body)
			switch c.want {
			case http.StatusOK:
				assert.Equal(t, map[string]any{"matched": float64(c.matched), "confirm": float64(c.matched)}, resp.body)
			case http.StatusConflict:
				assert.Equal(t, "count_changed", errorCode(resp))
				assert.Equal(t, float64(c.matched), resp.body["error"].(map[string]any)["matched"])
				assert.Equal(t, c.field, resp.body["error"].(map[string]any)["field"])
			default:
				if c.field != "" {
					assert.Equal(t, c.field, resp.body["error"].(map[string]any)["field"], resp.body)
				}
			}
			for _, id := range dead {
				e, err := s.Store.GetOutboxEntry(ctx, id)
				require.NoError(t, err)
				assert.Equal(t, status.OutboxDeadLetter, e.Status, "counting and refusing change nothing")
			}
		})
	}

	resp := s.call(t, http.MethodPost, "/api/partners/acme/requeue", `{"eventType":"OR_MGMT","confirm":2}`, "Authorization", "Bearer beta-token")
	assert.Equal(t, http.StatusForbidden, resp.status, "another partner's token resends nothing of acme's")
	resp = s.call(t, http.MethodPost, "/api/partners/acme/requeue", `{"eventType":"OR_MGMT","confirm":2}`, "Authorization", "Bearer acme-token")
	require.Equal(t, http.StatusAccepted, resp.status, resp.body)
	assert.Equal(t, map[string]any{"requeued": float64(2)}, resp.body)
	for i, id := range dead {
		e, err := s.Store.GetOutboxEntry(ctx, id)
		require.NoError(t, err)
		if i == 2 {
			assert.Equal(t, status.OutboxDeadLetter, e.Status, "another event type")
			continue
		}
		assert.Equal(t, status.OutboxPending, e.Status)
		assert.Zero(t, e.Attempts)
		assert.Equal(t, "partner:acme", e.RequeuedBy, "the partner resent its own")
		assert.Equal(t, 1, e.Requeues)
	}
	resp = s.call(t, http.MethodPost, "/api/partners/beta/requeue", `{}`)
	assert.Equal(t, map[string]any{"matched": float64(1), "confirm": float64(1)}, resp.body, "another partner's are its own")
}
