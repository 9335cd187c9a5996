package e2e

import (
	"context"
	"encoding/json"
	"io"
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
	"github.com/streamops/streamops/internal/local"
	"github.com/streamops/streamops/internal/outbox"
	"github.com/streamops/streamops/internal/provider"
	"github.com/streamops/streamops/internal/status"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/testenv"
)

// partnerProviders is a providers file of two partners that route their
// orders to the Partner Order Sync workflow (which delivers back to the
// partner): acme, whose configured partnerId (the seed's example id)
// differs from its provider name, and globex, whose is its name.
const partnerProviders = `{"providers": [
  {"name": "acme", "signature": {"scheme": "hmac", "header": "X-Acme-Signature", "encoding": "hex", "prefix": "sha256="},
   "eventId": {"path": "eventId"}, "eventType": {"path": "eventType"},
   "partner": {"partnerId": "6231cfc8800d284c981b3146", "partnerName": "Acme Corp", "entityIdPath": "order.id", "entityType": "Order"},
   "routes": [{"match": "OR_*", "workflow": {"name": "Partner Order Sync", "steps": ["validate", "transform", "store", "deliver"], "priority": "high"}}]},
  {"name": "globex", "signature": {"scheme": "hmac", "header": "X-Globex-Signature", "encoding": "hex", "prefix": "sha256="},
   "eventId": {"path": "eventId"}, "eventType": {"path": "eventType"},
   "partner": {"partnerId": "globex", "partnerName": "Globex", "entityIdPath": "order.id", "entityType": "Order"},
   "routes": [{"match": "OR_*", "workflow": {"name": "Partner Order Sync", "steps": ["validate", "transform", "store", "deliver"], "priority": "high"}}]}
]}`

// partnerStack starts a stack with partnerProviders, both partners'
// endpoints on one recording server, and a token per partner id plus one
// scoped to acme's provider name. deliveries counts what each endpoint
// received by webhook-id.
func partnerStack(t *testing.T) (*stack, func() map[string]map[string]int) {
	t.Helper()
	var mu sync.Mutex
	got := map[string]map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		mu.Lock()
		if got[r.URL.Path] == nil {
			got[r.URL.Path] = map[string]int{}
		}
		got[r.URL.Path][r.Header.Get("webhook-id")]++
		mu.Unlock()
	}))
	t.Cleanup(srv.Close)
	providersFile := filepath.Join(t.TempDir(), "providers.json")
	require.NoError(t, os.WriteFile(providersFile, []byte(partnerProviders), 0o600))
	partners := withPartners(t,
		outbox.Partner{ID: "6231cfc8800d284c981b3146", Name: "Acme Corp", URL: srv.URL + "/acme"},
		outbox.Partner{ID: "globex", Name: "Globex", URL: srv.URL + "/globex"})
	s := startWith(t, "", nil, func(cfg *local.Config) {
		partners(cfg)
		cfg.ProvidersFile = providersFile
		cfg.PartnerTokens = "6231cfc8800d284c981b3146=tok-acme,globex=tok-globex,acme=tok-acme-by-name"
		getenv := cfg.Getenv
		cfg.Getenv = func(k string) string {
			if k == provider.SecretEnvVar("acme") || k == provider.SecretEnvVar("globex") {
				return acmeSecret
			}
			return getenv(k)
		}
	})
	return s, func() map[string]map[string]int {
		mu.Lock()
		defer mu.Unlock()
		out := map[string]map[string]int{}
		for p, ids := range got {
			out[p] = map[string]int{}
			for id, n := range ids {
				out[p][id] = n
			}
		}
		return out
	}
}

// sendPartnerOrder posts body to /webhooks/{name} signed now and returns
// the answer's status and body.
func (s *stack) sendPartnerOrder(name, body string) (int, map[string]string) {
	s.t.Helper()
	header := testenv.Sign(s.t, s.Providers(), name, []byte(body), acmeSecret, provider.SignOptions{Now: time.Now()})
	header.Set("Content-Type", "application/json")
	code, raw, err := s.do(http.MethodPost, "/webhooks/"+name, []byte(body), header)
	require.NoError(s.t, err)
	var answer map[string]string
	require.NoError(s.t, json.Unmarshal(raw, &answer), string(raw))
	return code, answer
}

// TestOnePartnerIDEverywhere sends each partner's signed order webhook
// through the whole stack and reads the partner id at every place one is
// derived: the events of the webhook's execution, its IN partner event,
// the outbox entry that delivers back, the OUT partner event, the
// operational events, and what the partner's token sees. For acme, whose
// configured partnerId differs from its provider name, every place carries
// the partnerId, and a token scoped to the provider name is refused.
func TestOnePartnerIDEverywhere(t *testing.T) {
	s, deliveries := partnerStack(t)
	ctx := context.Background()
	for _, p := range []struct {
		provider, partnerID, token string
	}{
		{"acme", "6231cfc8800d284c981b3146", "tok-acme"},
		{"globex", "globex", "tok-globex"},
	} {
		t.Run(p.provider, func(t *testing.T) {
			code, answer := s.sendPartnerOrder(p.provider,
				`{"eventId":"`+p.provider+`-id-1","eventType":"OR_PLC","order":{"id":"59734","status":"OR_PLC"}}`)
			require.Equal(t, http.StatusAccepted, code, answer)
			whID := answer["webhookEventId"]
			var history []store.PartnerEvent
			s.eventually(60*time.Second, func() bool {
				var err error
				history, err = s.Store().PartnerHistory(ctx, p.partnerID)
				require.NoError(t, err)
				for _, ev := range history {
					if ev.EventDirection == status.DirectionOut && ev.EventStatus == status.PartnerSuccess {
						return true
					}
				}
				return false
			}, "%s's order is delivered back", p.provider)
			byDir := map[string]store.PartnerEvent{}
			for _, ev := range history {
				byDir[ev.EventDirection] = ev
			}
			entry, err := s.Store().GetOutboxEntry(ctx, byDir[status.DirectionOut].OutboxID)
			require.NoError(t, err)
			execution := s.events(url.Values{"execution_id": {whID}})
			require.NotEmpty(t, execution)
			require.Equal(t, http.StatusOK, s.call(http.MethodPost, "/api/partners/"+p.partnerID+"/pause",
				[]byte(`{"reason":"maintenance"}`), nil, nil))
			var paused []events.Envelope
			s.eventually(10*time.Second, func() bool {
				paused = s.events(url.Values{"event_types": {string(events.PartnerPaused)}})
				return len(paused) > 0 && paused[len(paused)-1].Metadata.PartnerID == p.partnerID
			}, "partner.paused of %s", p.partnerID)
			require.Equal(t, http.StatusOK, s.call(http.MethodPost, "/api/partners/"+p.partnerID+"/resume", []byte(`{}`), nil, nil))

			partnerAPI := testenv.API{URL: s.URL(), Token: p.token}
			seen := allEvents(t, partnerAPI, url.Values{"execution_id": {whID}})
			var own struct {
				Events []store.PartnerEvent `json:"events"`
			}
			require.Equal(t, http.StatusOK, partnerAPI.Call(t, http.MethodGet, "/api/partners/"+p.partnerID+"/events", nil, nil, &own))

			places := []struct {
				place string
				got   []string
			}{
				{"metadata.partnerId of every event of the webhook's execution", partnerIDs(execution)},
				{"entity_metadata.partnerId of the IN partner event", []string{byDir[status.DirectionIn].EntityMetadata.PartnerID}},
				{"target_provider of the outbox entry delivering back", []string{entry.TargetProvider}},
				{"entity_metadata.partnerId of the OUT partner event", []string{byDir[status.DirectionOut].EntityMetadata.PartnerID}},
				{"the endpoint that received the delivery", endpointsOf(deliveries(), entry.OutboxID)},
				{"metadata.partnerId and payload of partner.paused", []string{paused[len(paused)-1].Metadata.PartnerID, payloadPartner(t, paused[len(paused)-1])}},
				{"what the partner's token sees of the execution", partnerIDs(seen)},
				{"what the partner's token sees of its partner events", partnerEventIDs(own.Events)},
			}
			for _, pl := range places {
				require.NotEmpty(t, pl.got, pl.place)
				for _, id := range pl.got {
					assert.Equal(t, p.partnerID, id, pl.place)
				}
			}
			assert.Len(t, seen, len(execution), "the partner's token sees every event of its webhook's execution")
			assert.Len(t, own.Events, 2, "and its IN and OUT partner events")
		})
	}

	code, body, err := (testenv.API{URL: s.URL(), Token: "tok-acme-by-name"}).Do(http.MethodGet, "/api/events", nil, nil)
	require.NoError(t, err)
	assert.Equal(t, http.StatusForbidden, code, "a token scoped to acme's provider name would see none of its events")
	assert.Contains(t, string(body), `partnerId \"6231cfc8800d284c981b3146\"`)
}

func partnerIDs(evs []events.Envelope) []string {
	out := make([]string, len(evs))
	for i, e := range evs {
		if e.Metadata != nil {
			out[i] = e.Metadata.PartnerID
		}
	}
	return out
}

func partnerEventIDs(evs []store.PartnerEvent) []string {
	out := make([]string, len(evs))
	for i, ev := range evs {
		out[i] = ev.EntityMetadata.PartnerID
	}
	return out
}

// endpointsOf is the partner id of each endpoint (its path on the
// recording server, by the partners file) that received outbox entry id.
func endpointsOf(got map[string]map[string]int, id string) []string {
	byPath := map[string]string{"/acme": "6231cfc8800d284c981b3146", "/globex": "globex"}
	var out []string
	for path, ids := range got {
		if ids[id] > 0 {
			out = append(out, byPath[path])
		}
	}
	return out
}

func payloadPartner(t *testing.T, e events.Envelope) string {
	var p struct {
		PartnerID string `json:"partnerId"`
	}
	require.NoError(t, json.Unmarshal(e.Payload, &p))
	return p.PartnerID
}

// TestAPartnerResendRunsNothingAndALaterStateRunsOnce is seed 000's
// idempotency (entity_id + event_type) end to end: acme sends an order,
// resends it after a timeout on its side under a new event id, then sends
// a genuine later state of the order (a new orderStatusLatest) and resends
// that. Counted at the partner's real endpoint: each state's workflow runs
// and delivers back once, the resends run nothing and are answered
// duplicate naming the delivery whose work runs.
func TestAPartnerResendRunsNothingAndALaterStateRunsOnce(t *testing.T) {
	s, deliveries := partnerStack(t)
	ctx := context.Background()
	order := func(id, st string) string {
		return `{"eventId":"` + id + `","eventType":"OR_MGMT","order":{"id":"59734","orderStatusLatest":"` + st + `"}}`
	}
	sends := []struct {
		name       string
		body       string
		wantCode   int
		wantStatus string
		wantOf     int // the send whose webhook event the answer names
		delivered  int // deliveries back to acme so far
	}{
		{"the order", order("acme-r-1", "OR_PLC"), http.StatusAccepted, "accepted", 0, 1},
		{"its resend under a new id", order("acme-r-2", "OR_PLC"), http.StatusOK, "duplicate", 0, 1},
		{"a later state", order("acme-r-3", "OR_SHP"), http.StatusAccepted, "accepted", 2, 2},
		{"its resend under a new id", order("acme-r-4", "OR_SHP"), http.StatusOK, "duplicate", 2, 2},
	}
	ids := make([]string, len(sends))
	total := func() int {
		n := 0
		for _, c := range deliveries()["/acme"] {
			n += c
		}
		return n
	}
	for i, snd := range sends {
		code, answer := s.sendPartnerOrder("acme", snd.body)
		ids[i] = store.WebhookEventID("acme", "acme-r-"+string(rune('1'+i)))
		require.Equal(t, snd.wantCode, code, "%s: %v", snd.name, answer)
		assert.Equal(t, snd.wantStatus, answer["status"], snd.name)
		assert.Equal(t, ids[snd.wantOf], answer["webhookEventId"], snd.name)
		s.eventually(60*time.Second, func() bool { return total() >= snd.delivered }, "%s: delivered back", snd.name)
		// A workflow the resend started would have delivered within the
		// time the first one took; the sweeper and relay run every 100 ms.
		s.eventually(10*time.Second, func() bool {
			wfs := s.events(url.Values{"event_types": {string(events.WorkflowCompleted)}})
			return len(wfs) == sends[snd.wantOf].delivered
		}, "%s: workflows completed", snd.name)
	}
	assert.Equal(t, 2, total(), "one delivery back per state of the order")
	assert.Len(t, s.events(url.Values{"event_types": {string(events.WorkflowCreated)}}), 2, "one workflow per state")

	id := store.PartnerEventID("6231cfc8800d284c981b3146", status.DirectionIn, "59734", "OR_MGMT")
	pe, err := s.Store().GetPartnerEvent(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, 2, pe.EntityVersion)
	assert.Equal(t, ids[2], pe.WebhookEventID)
	assert.JSONEq(t, `{"eventId":"acme-r-3","eventType":"OR_MGMT","order":{"id":"59734","orderStatusLatest":"OR_SHP"}}`, string(pe.EntityData))
	for _, i := range []int{1, 3} {
		row, err := s.Store().GetWebhookEvent(ctx, ids[i])
		require.NoError(t, err)
		assert.Equal(t, status.WebhookSkipped, row.Status, "a resend's row is kept, skipped")
		assert.Equal(t, "resend of webhook event "+ids[i-1], row.ErrorMessage)
		_, err = s.Store().GetWorkflow(ctx, events.DeriveID(events.WorkflowIDPrefix, ids[i], "workflow", "run-0"))
		assert.ErrorIs(t, err, store.ErrNotFound, "the resend started no workflow")
	}
}
