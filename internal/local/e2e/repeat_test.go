package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/bus"
	"github.com/streamops/streamops/internal/emit"
	"github.com/streamops/streamops/internal/ingest"
	"github.com/streamops/streamops/internal/local"
	"github.com/streamops/streamops/internal/outbox"
	"github.com/streamops/streamops/internal/provider"
	"github.com/streamops/streamops/internal/status"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/store/storetest"
	"github.com/streamops/streamops/internal/sweep"
	"github.com/streamops/streamops/internal/task"
	"github.com/streamops/streamops/internal/testenv"
)

// sweeperOf is a retry-sweeper of its own over the stack's store and
// broker, on a test clock set past the stack's time by more than every
// delay of the sweeper (received rows after 2 min, stalled work after
// 10 min): each run finds everything it would ever find. advance moves
// the clock on by one more stall period.
func sweeperOf(t *testing.T, s *stack) (run func(), advance func()) {
	t.Helper()
	b, err := bus.New(bus.Config{Brokers: s.Brokers()})
	require.NoError(t, err)
	t.Cleanup(b.Close)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	em, err := emit.New(emit.Config{Store: s.Store(), Publisher: b, Logger: log})
	require.NoError(t, err)
	rt, err := ingest.New(ingest.Config{Providers: s.Providers(), Secrets: provider.EnvSecrets{}, Store: s.Store(), Emitter: em, Logger: log})
	require.NoError(t, err)
	retrier, err := task.NewRetrier(s.Store(), b, em, log)
	require.NoError(t, err)
	clock := storetest.NewClock()
	clock.Advance(time.Since(clock.Now()) + sweep.DefaultStallAfter + time.Minute)
	sw, err := sweep.New(sweep.Config{Store: s.Store(), Publisher: b, Router: rt, Tasks: retrier, Now: clock.Now, Logger: log})
	require.NoError(t, err)
	return func() {
			t.Helper()
			// A deadline, as a Lambda invocation has: each pass works until
			// it nears it.
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			_, err := sw.Run(ctx)
			require.NoError(t, err)
		}, func() {
			clock.Advance(sweep.DefaultStallAfter + time.Minute)
		}
}

// countWorkflowsOf is how many workflows the webhook event started, and
// how many of them failed, as GET /api/events shows them.
func countWorkflowsOf(s *stack, webhookEventID string) (created, failed int) {
	evs := s.events(url.Values{"execution_id": {webhookEventID},
		"event_types": {string(events.WorkflowCreated), string(events.WorkflowFailed)}})
	created, failed = typesOf(evs)[events.WorkflowCreated], typesOf(evs)[events.WorkflowFailed]
	return created, failed
}

// TestAFailedWebhookWorkflowIsOneRunWhateverTheSweeperDoes is the issue's
// scenario: a signed Stripe invoice.finalized whose body carries
// "records":"x" fails its Invoice Sync workflow with INVALID_INPUT; the
// retry-sweeper, run again and again with its clock past every delay,
// starts no second run: one workflow.created, one workflow.failed, and
// the row stays failed naming that run.
func TestAFailedWebhookWorkflowIsOneRunWhateverTheSweeperDoes(t *testing.T) {
	s := start(t, "", nil)
	var doc map[string]any
	require.NoError(t, json.Unmarshal(testenv.Testdata(t, "webhooks/stripe-invoice-finalized.json"), &doc))
	doc["id"], doc["records"] = "evt_records_x", "x"
	body, err := json.Marshal(doc)
	require.NoError(t, err)
	var hook receipt
	require.Equal(t, http.StatusAccepted, s.call("POST", "/webhooks/stripe", body, s.signedStripe(body), &hook))
	s.eventually(30*time.Second, func() bool { return webhookStatus(s, hook.WebhookEventID) == status.WebhookFailed },
		"the Invoice Sync workflow did not fail")
	failed := s.events(url.Values{"execution_id": {hook.WebhookEventID}, "event_types": {string(events.WorkflowFailed)}})
	require.Len(t, failed, 1)
	assert.Contains(t, string(failed[0].Payload), `"code":"INVALID_INPUT"`)

	run, advance := sweeperOf(t, s)
	for range 6 {
		run()
		advance()
	}
	created, failedRuns := countWorkflowsOf(s, hook.WebhookEventID)
	assert.Equal(t, 1, created, "GET /api/events?execution_id=…&event_types=workflow.created lists one workflow")
	assert.Equal(t, 1, failedRuns, "one workflow.failed")
	row, err := s.Store().GetWebhookEvent(context.Background(), hook.WebhookEventID)
	require.NoError(t, err)
	assert.Equal(t, status.WebhookFailed, row.Status)
	assert.Equal(t, 1, row.RetryCount, "routed once")
	assert.Equal(t, events.DeriveID(events.WorkflowIDPrefix, hook.WebhookEventID, "workflow", "run-0"), row.RunID)
}

// partnerEndpoint is a real partner endpoint that counts the deliveries
// it gets, by webhook-id.
type partnerEndpoint struct {
	mu         sync.Mutex
	deliveries map[string]int
}

func (e *partnerEndpoint) counts() (requests, distinct int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, n := range e.deliveries {
		requests += n
	}
	return requests, len(e.deliveries)
}

// storedRecords counts the records the runs of a webhook event stored
// (the store step's workflow_records).
func storedRecords(t *testing.T, s *stack, webhookEventID string) int {
	t.Helper()
	n := 0
	for _, e := range s.events(url.Values{"execution_id": {webhookEventID}, "event_types": {string(events.WorkflowCreated)}}) {
		recs, err := s.Store().WorkflowRecords(context.Background(), e.AggregateID())
		require.NoError(t, err)
		n += len(recs)
	}
	return n
}

// noticeRoute is a Stripe route of the test's providers file whose
// workflow has side effects before the step that fails: it delivers to
// the partner (deliver) and stores its records (store), then fails for
// good (validate, on a schema that does not compile). (A webhook-started
// run cannot email: the body's addresses are scrubbed at ingress.)
const noticeRoute = `{"match":"charge.refunded","workflow":{"name":"Refund Notice","steps":["deliver","store","validate"],"priority":"high"}}`

// refundBody is a delivery the Refund Notice route runs: one record, the
// deliver parameter, and a schema validate cannot compile.
func refundBody(id string) []byte {
	return fmt.Appendf(nil, `{"id":%q,"object":"event","type":"charge.refunded","records":[{"n":1}],`+
		`"deliver":{"target":"acme-repeat","eventType":"REFUND"},"schema":{"type":5}}`, id)
}

// withNoticeRoute is a configure of startWith: the default providers with
// noticeRoute added to Stripe's.
func withNoticeRoute(t *testing.T) func(*local.Config) {
	t.Helper()
	var table struct {
		Providers []map[string]any `json:"providers"`
	}
	raw, err := os.ReadFile("../../provider/providers.json")
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, &table))
	var route map[string]any
	require.NoError(t, json.Unmarshal([]byte(noticeRoute), &route))
	for _, p := range table.Providers {
		if p["name"] == "stripe" {
			p["routes"] = append([]any{route}, p["routes"].([]any)...)
		}
	}
	out, err := json.Marshal(table)
	require.NoError(t, err)
	file := filepath.Join(t.TempDir(), "providers.json")
	require.NoError(t, os.WriteFile(file, out, 0o600))
	return func(cfg *local.Config) { cfg.ProvidersFile = file }
}

// TestEveryRepeatPathRunsADeliveryOnce is the repeat-path table of
// docs/reliability.md for a webhook event, as a class: each path that does
// something again (the sweeper's re-route, its stall re-drive, an
// operator's plain retry, an operator's new attempt), hit before the run
// started, between its parts, and after it ended, and counted at a real
// partner endpoint and in the records the runs stored. A machine, or a plain
// retry, repeats only what did not happen; only a new attempt runs again,
// under new ids, once however often it is asked with one key.
func TestEveryRepeatPathRunsADeliveryOnce(t *testing.T) {
	effects := &partnerEndpoint{deliveries: map[string]int{}}
	partner := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		effects.mu.Lock()
		effects.deliveries[r.Header.Get("webhook-id")]++
		effects.mu.Unlock()
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(partner.Close)
	partners := withPartners(t, outbox.Partner{ID: "acme-repeat", Name: "Acme", URL: partner.URL})
	routes := withNoticeRoute(t)
	s := startWith(t, "", nil, func(cfg *local.Config) { partners(cfg); routes(cfg) })
	run, advance := sweeperOf(t, s)
	sweepTimes := func(n int) {
		for range n {
			run()
			advance()
		}
	}
	ctx := context.Background()

	// deliver sends the Refund Notice delivery id and returns its webhook
	// event id.
	deliver := func(t *testing.T, id string) string {
		t.Helper()
		body := refundBody(id)
		var hook receipt
		require.Equal(t, http.StatusAccepted, s.call("POST", "/webhooks/stripe", body, s.signedStripe(body), &hook))
		return hook.WebhookEventID
	}
	ended := func(t *testing.T, webhookEventID string) {
		t.Helper()
		testenv.Eventually(t, 30*time.Second, func() bool {
			row, err := s.Store().GetWebhookEvent(ctx, webhookEventID)
			return err == nil && row.Status == status.WebhookFailed && row.RunID != ""
		}, "the Refund Notice run of %s did not fail", webhookEventID)
	}
	retry := func(t *testing.T, webhookEventID, body string, header http.Header) int {
		t.Helper()
		return s.call("POST", "/api/webhook-events/"+webhookEventID+"/retry", []byte(body), header, nil)
	}

	tests := []struct {
		name string
		// crash leaves the delivery id as a crash (or nothing) left it and
		// returns its webhook event id.
		crash func(t *testing.T, id string) string
		// repeat is the path that does it again.
		repeat func(t *testing.T, webhookEventID string)
		// wantRuns is how many runs (workflows, stored records, distinct
		// partner deliveries) there must be.
		wantRuns int
	}{
		{"sweeper re-route, after the run failed", func(t *testing.T, id string) string {
			hook := deliver(t, id)
			ended(t, hook)
			return hook
		}, func(t *testing.T, _ string) { sweepTimes(6) }, 1},
		{"sweeper re-route, crash before routing (row stored received)", func(t *testing.T, id string) string {
			row, err := s.Store().InsertWebhookEvent(ctx, store.WebhookEvent{Provider: "stripe", ProviderEventID: id,
				EventType: "charge.refunded", Payload: store.JSONDoc(refundBody(id))})
			require.NoError(t, err)
			return row.EventID
		}, func(t *testing.T, hook string) { sweepTimes(3); ended(t, hook); sweepTimes(3) }, 1},
		{"stall re-drive, crash between the row and its work", func(t *testing.T, id string) string {
			hook := store.WebhookEventID("stripe", id)
			_, err := s.Store().InsertWebhookEvent(ctx, store.WebhookEvent{Provider: "stripe", ProviderEventID: id,
				EventType: "charge.refunded", Payload: store.JSONDoc(refundBody(id)), Status: status.WebhookProcessing, RetryCount: 1,
				RunID: events.DeriveID(events.WorkflowIDPrefix, hook, "workflow", "run-0")})
			require.NoError(t, err)
			return hook
		}, func(t *testing.T, hook string) { sweepTimes(3); ended(t, hook); sweepTimes(3) }, 1},
		{"stall re-drive and sweeper, during the run", func(t *testing.T, id string) string {
			return deliver(t, id)
		}, func(t *testing.T, hook string) { sweepTimes(3); ended(t, hook); sweepTimes(3) }, 1},
		{"operator's plain retry, after the run failed", func(t *testing.T, id string) string {
			hook := deliver(t, id)
			ended(t, hook)
			return hook
		}, func(t *testing.T, hook string) {
			assert.Equal(t, http.StatusConflict, retry(t, hook, "", nil))
			assert.Equal(t, http.StatusConflict, retry(t, hook, "", nil))
			sweepTimes(3)
		}, 1},
		{"operator's new attempt, asked three times with one key", func(t *testing.T, id string) string {
			hook := deliver(t, id)
			ended(t, hook)
			return hook
		}, func(t *testing.T, hook string) {
			key := http.Header{"Idempotency-Key": {"attempt-" + hook}}
			for range 3 {
				assert.Equal(t, http.StatusAccepted, retry(t, hook, `{"newAttempt":true,"reason":"partner fixed"}`, key))
			}
			ended(t, hook)
			sweepTimes(3)
		}, 2},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d0, distinct0 := effects.counts()
			hook := tc.crash(t, fmt.Sprintf("evt_repeat_%d", i))
			tc.repeat(t, hook)
			// The relay works on: wait until every run's delivery arrived,
			// then check none is extra.
			var d, distinct int
			for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
				if d, distinct = effects.counts(); distinct-distinct0 >= tc.wantRuns {
					break
				}
			}
			created, failed := countWorkflowsOf(s, hook)
			assert.Equal(t, tc.wantRuns, created, "workflows the delivery started")
			assert.Equal(t, tc.wantRuns, failed, "workflow.failed")
			assert.Equal(t, tc.wantRuns, storedRecords(t, s, hook), "records stored")
			assert.Equal(t, tc.wantRuns, distinct-distinct0, "partner deliveries (distinct webhook-ids)")
			assert.Equal(t, tc.wantRuns, d-d0, "partner requests: each delivery sent once")
		})
	}
}
