package httpapi_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/internal/outbox"
	"github.com/streamops/streamops/internal/provider"
	"github.com/streamops/streamops/internal/status"
	"github.com/streamops/streamops/internal/store"
)

// goneBody is what the partner answers its 410s with: 3000 bytes, of
// which the delivery log keeps the first KiB.
var goneBody = `{"error":"endpoint retired","detail":"` + strings.Repeat("x", 3000-40) + `"}`

// TestDeadLetterBulkRequeueAndResendAgainstARealPartner: a partner
// endpoint answering 410 Gone dead-letters three deliveries at once, the
// first KiB of its answer in each delivery log; an operator counts the
// partner's dead letters of one event type, confirms a stale count (409
// count_changed, nothing changes), then the right one; the relay delivers
// them on the new round; a resend of a completed one reaches the partner
// once more; and the entry's log shows every attempt in order.
func TestDeadLetterBulkRequeueAndResendAgainstARealPartner(t *testing.T) {
	s := newAPIStack(t)
	ctx := context.Background()
	var mu sync.Mutex
	var received []string // webhook-id of every request, in order
	gone := 3
	partner := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		mu.Lock()
		defer mu.Unlock()
		received = append(received, r.Header.Get("webhook-id"))
		if gone > 0 {
			gone--
			w.WriteHeader(http.StatusGone)
			_, _ = io.WriteString(w, goneBody)
			return
		}
		_, _ = io.WriteString(w, `{"ok":true}`)
	}))
	t.Cleanup(partner.Close)
	relay, err := outbox.New(outbox.Config{Store: s.Store, Kafka: outbox.KafkaDeliverer{Publisher: s.Bus},
		Partners: map[string]outbox.Partner{"acme": {ID: "acme", Name: "Acme Corp", URL: partner.URL}},
		PartnerDeliverer: outbox.PartnerDeliverer{Timeout: 5 * time.Second, Secrets: provider.EnvSecrets{Prefix: "PARTNER_SECRET_",
			Lookup: func(string) string { return "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw" }}},
		Logger: s.Logger})
	require.NoError(t, err)
	run := func(want func(outbox.Stats) int, n int) {
		t.Helper()
		st, err := relay.Run(ctx)
		require.NoError(t, err)
		require.Equal(t, n, want(st), "%+v", st)
	}

	var ids []string
	for i, typ := range []string{"OR_MGMT", "OR_MGMT", "OR_OTHER"} {
		id := store.OutboxID(fmt.Sprintf("evt-e2e-%d", i), "acme")
		ids = append(ids, id)
		_, err := s.Store.EnqueueOutbox(ctx, store.OutboxEntry{OutboxID: id, TargetProvider: "acme", EventType: typ,
			AggregateType: "Order", AggregateID: fmt.Sprint(i), Payload: store.JSONDoc(fmt.Sprintf(`{"orderId":%d}`, i))})
		require.NoError(t, err)
	}
	run(func(st outbox.Stats) int { return st.DeadLettered }, 3)

	entry := s.call(t, http.MethodGet, "/api/outbox/"+ids[0], "")
	require.Equal(t, http.StatusOK, entry.status, entry.body)
	assert.Equal(t, status.OutboxDeadLetter, entry.body["status"])
	assert.Equal(t, map[string]any{"orderId": float64(0)}, entry.body["payload"], "an admin sees the payload")
	log := entry.body["deliveryLog"].([]any)
	require.Len(t, log, 1)
	row := log[0].(map[string]any)
	assert.Equal(t, float64(http.StatusGone), row["statusCode"])
	assert.Equal(t, status.OutboxDeadLetter, row["outcome"])
	assert.Equal(t, goneBody[:1024], row["responseBody"], "the first KiB of the answer")

	// Count, confirm a stale count, then the right one.
	const path = "/api/partners/acme/requeue"
	resp := s.call(t, http.MethodPost, path, `{"eventType":"OR_MGMT"}`)
	require.Equal(t, http.StatusOK, resp.status, resp.body)
	assert.Equal(t, map[string]any{"matched": float64(2), "confirm": float64(2)}, resp.body)
	resp = s.call(t, http.MethodPost, path, `{"eventType":"OR_MGMT","confirm":3}`)
	require.Equal(t, http.StatusConflict, resp.status, resp.body)
	assert.Equal(t, "count_changed", errorCode(resp))
	assert.Equal(t, float64(2), resp.body["error"].(map[string]any)["matched"])
	after, err := s.Store.GetOutboxEntry(ctx, ids[0])
	require.NoError(t, err)
	assert.Equal(t, status.OutboxDeadLetter, after.Status, "a refused confirmation changes nothing")
	resp = s.call(t, http.MethodPost, path, `{"eventType":"OR_MGMT","confirm":2}`, "Authorization", "Bearer alice-token")
	require.Equal(t, http.StatusAccepted, resp.status, resp.body)
	assert.Equal(t, map[string]any{"requeued": float64(2)}, resp.body)

	run(func(st outbox.Stats) int { return st.Delivered }, 2)
	other, err := s.Store.GetOutboxEntry(ctx, ids[2])
	require.NoError(t, err)
	assert.Equal(t, status.OutboxDeadLetter, other.Status, "the filter left the other event type")

	resp = s.call(t, http.MethodPost, "/api/outbox/"+ids[0]+"/resend", "")
	require.Equal(t, http.StatusAccepted, resp.status, resp.body)
	assert.Equal(t, status.OutboxPending, resp.body["status"])
	assert.Equal(t, float64(1), resp.body["resends"])
	assert.Equal(t, "admin", resp.body["resentBy"])
	assert.Nil(t, resp.body["completedAt"], "cleared until the new round completes")
	run(func(st outbox.Stats) int { return st.Delivered }, 1)

	mu.Lock()
	got := append([]string(nil), received...)
	mu.Unlock()
	n := 0
	for _, id := range got {
		if id == ids[0] {
			n++
		}
	}
	assert.Equal(t, 3, n, "the partner received it three times: gone, requeued, resent")

	entry = s.call(t, http.MethodGet, "/api/outbox/"+ids[0], "")
	require.Equal(t, http.StatusOK, entry.status, entry.body)
	assert.Equal(t, status.OutboxCompleted, entry.body["status"])
	assert.Equal(t, float64(1), entry.body["attempts"], "the resend's round")
	assert.Equal(t, float64(1), entry.body["requeues"])
	assert.Equal(t, "alice", entry.body["requeuedBy"])
	log = entry.body["deliveryLog"].([]any)
	require.Len(t, log, 3, "every attempt, in one log")
	var outcomes []any
	var codes []any
	var prev time.Time
	for _, r := range log {
		row := r.(map[string]any)
		outcomes, codes = append(outcomes, row["outcome"]), append(codes, row["statusCode"])
		at, err := time.Parse(time.RFC3339Nano, row["at"].(string))
		require.NoError(t, err)
		assert.False(t, at.Before(prev), "oldest first")
		prev = at
	}
	assert.Equal(t, []any{status.OutboxDeadLetter, status.OutboxCompleted, status.OutboxCompleted}, outcomes)
	assert.Equal(t, []any{float64(410), float64(200), float64(200)}, codes)
	assert.Equal(t, `{"ok":true}`, log[2].(map[string]any)["responseBody"])
	ev, err := s.Store.PartnerDeliveryOf(ctx, ids[0])
	require.NoError(t, err)
	assert.Equal(t, status.PartnerSuccess, ev.EventStatus)
	assert.Len(t, ev.EntityMetadata.ResilienceAttemptCount, 1, "the resend's round alone")

	// The partner's own token pages through its deliveries, newest first,
	// without payloads or bodies.
	var seen []string
	cursor := ""
	for range 4 {
		resp = s.call(t, http.MethodGet, "/api/partners/acme/deliveries?limit=2&cursor="+url.QueryEscape(cursor), "",
			"Authorization", "Bearer acme-token")
		require.Equal(t, http.StatusOK, resp.status, resp.body)
		for _, d := range resp.body["deliveries"].([]any) {
			v := d.(map[string]any)
			seen = append(seen, v["outboxId"].(string))
			assert.NotContains(t, v, "payload")
			for _, r := range v["deliveryLog"].([]any) {
				assert.NotContains(t, r, "responseBody")
			}
		}
		next, _ := resp.body["nextCursor"].(string)
		if next == "" {
			break
		}
		cursor = next
	}
	assert.ElementsMatch(t, ids, seen, "each once across the pages")
	assert.Len(t, seen, 3)
}
