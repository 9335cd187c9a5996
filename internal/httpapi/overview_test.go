package httpapi_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/status"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/store/storetest"
)

// statsAnswer is the part of GET /api/stats the overview tests read.
type statsAnswer struct {
	OpenDeadLetters               int64                   `json:"openDeadLetters"`
	OldestPendingOutboxAgeSeconds *float64                `json:"oldestPendingOutboxAgeSeconds"`
	OpenBreakers                  []store.PartnerEndpoint `json:"openBreakers"`
	EventRate                     *struct {
		Since         time.Time `json:"since"`
		BucketSeconds int       `json:"bucketSeconds"`
		Counts        []int64   `json:"counts"`
	} `json:"eventRate"`
	Collections map[string]map[string]map[string]int64 `json:"collections"`
}

func (s *apiStack) stats(t *testing.T, query string) statsAnswer {
	t.Helper()
	resp := s.call(t, http.MethodGet, "/api/stats"+query, "")
	require.Equal(t, http.StatusOK, resp.status, resp.body)
	raw, err := json.Marshal(resp.body)
	require.NoError(t, err)
	var st statsAnswer
	require.NoError(t, json.Unmarshal(raw, &st))
	return st
}

func TestStatsReportWhatNeedsActingOnWhateverTheWindow(t *testing.T) {
	s := newAPIStack(t)
	ctx := context.Background()

	empty := s.stats(t, "")
	assert.Zero(t, empty.OpenDeadLetters)
	assert.Nil(t, empty.OldestPendingOutboxAgeSeconds, "nothing waits in the outbox")
	assert.Empty(t, empty.OpenBreakers)
	assert.Nil(t, empty.EventRate, "no window, no series")

	old := time.Now().Add(-3 * time.Hour)
	_, err := s.Store.InsertDeadLetters(ctx,
		store.DeadLetterEntry{Processor: "task-processor", Topic: events.TopicTasks, Offset: 1, Value: []byte(`x`), Reason: "undecodable", ReceivedAt: old},
		store.DeadLetterEntry{Processor: "task-processor", Topic: events.TopicTasks, Offset: 2, Value: []byte(`y`), Reason: "undecodable"})
	require.NoError(t, err)
	_, err = s.Store.EnqueueOutbox(ctx, store.OutboxEntry{OutboxID: "ob-1", AggregateType: "workflow", AggregateID: "wf-1",
		EventType: "records.delivered", TargetProvider: "acme", Payload: store.JSONDoc(`{}`)})
	require.NoError(t, err)
	until := time.Now().Add(time.Minute)
	storetest.SaveBreakers(t, s.Store,
		store.PartnerEndpoint{PartnerID: "acme", State: status.BreakerOpen, ConsecutiveFailures: 5, OpenUntil: &until, LastError: "HTTP 503"},
		store.PartnerEndpoint{PartnerID: "beta", State: status.BreakerClosed})
	resp := s.call(t, http.MethodPost, "/api/workflows", `{"name":"Rate","steps":["validate"],"priority":"low"}`)
	require.Equal(t, http.StatusCreated, resp.status, resp.body)

	st := s.stats(t, "?window=1h")
	assert.EqualValues(t, 2, st.OpenDeadLetters, "open dead letters are counted whatever the window")
	assert.EqualValues(t, 1, st.Collections[store.CollDeadLetters]["status"][status.DeadLetterOpen], "the counts keep to the window")
	require.NotNil(t, st.OldestPendingOutboxAgeSeconds)
	assert.GreaterOrEqual(t, *st.OldestPendingOutboxAgeSeconds, 0.0)
	require.Len(t, st.OpenBreakers, 1)
	assert.Equal(t, "acme", st.OpenBreakers[0].PartnerID)
	assert.Equal(t, "HTTP 503", st.OpenBreakers[0].LastError)
	assert.EqualValues(t, 1, st.Collections[store.CollWorkflows]["status"]["pending"])
	require.NotNil(t, st.EventRate)
	assert.Equal(t, 60, st.EventRate.BucketSeconds)
	require.Len(t, st.EventRate.Counts, 60)
	assert.EqualValues(t, 1, st.EventRate.Counts[59], "the workflow.created just stored is in the last bucket")
	assert.WithinDuration(t, time.Now().Truncate(time.Minute).Add(-59*time.Minute), st.EventRate.Since, time.Minute)
}

func TestStatsEventRateBuckets(t *testing.T) {
	s := newAPIStack(t)
	for _, tc := range []struct {
		window        string
		buckets, secs int
	}{
		{"30s", 1, 60},
		{"15m", 15, 60},
		{"1h", 60, 60},
		{"2h", 120, 60},
		{"24h", 120, 720},
		{"168h", 120, 5040},
		{"8760h", 120, 262800}, // the longest window
	} {
		t.Run(tc.window, func(t *testing.T) {
			asked := time.Now()
			st := s.stats(t, "?window="+tc.window)
			require.NotNil(t, st.EventRate)
			assert.Len(t, st.EventRate.Counts, tc.buckets)
			assert.Equal(t, tc.secs, st.EventRate.BucketSeconds)
			end := st.EventRate.Since.Add(time.Duration(tc.buckets*tc.secs) * time.Second)
			assert.True(t, end.After(asked), "the last bucket holds the minute of the request")
		})
	}
	resp := s.call(t, http.MethodGet, "/api/stats?window=8761h", "")
	assert.Equal(t, http.StatusBadRequest, resp.status, "over a year: %v", resp.body)
}

func TestPartnersAreListedWithinTheTokensScope(t *testing.T) {
	s := newAPIStack(t)
	ctx := context.Background()
	for _, p := range []string{"acme", "beta"} {
		_, err := s.Store.InsertPartnerEvent(ctx, store.PartnerEvent{EventType: "OR_MGMT", EventStatus: status.PartnerSuccess,
			EventDirection: status.DirectionIn, EntityMetadata: store.PartnerEntityMetadata{PartnerID: p, EntityID: "order-1", EntityType: "Order"},
			EntityData: store.JSONDoc(`{}`)})
		require.NoError(t, err)
	}
	storetest.SaveBreakers(t, s.Store, store.PartnerEndpoint{PartnerID: "gamma", State: status.BreakerOpen, ConsecutiveFailures: 5})

	partners := func(token string) []string {
		w := serve(s.handler, request(http.MethodGet, "/api/partners", "", token))
		require.Equal(t, http.StatusOK, w.Code, w.Body.String())
		var page struct {
			Partners []partnerAnswer `json:"partners"`
		}
		require.NoError(t, json.Unmarshal(w.Body.Bytes(), &page))
		var ids []string
		for _, p := range page.Partners {
			ids = append(ids, p.PartnerID+":"+p.State+":"+p.Config.DeliveryURL)
		}
		return ids
	}
	acme := "acme:closed:https://REDACTED@hooks.acme.example/streamops?key=REDACTED"
	assert.Equal(t, []string{acme, "beta:closed:", "delta:closed:https://delta.example/in", "gamma:open:"}, partners(adminToken),
		"the store's partners and the configured ones, the delivery URL without credentials")
	assert.Equal(t, []string{acme}, partners("acme-token"), "a partner sees only itself")
	assert.Equal(t, []string{"beta:closed:"}, partners("beta-token"), "and no other's configuration")

	for token, want := range map[string]string{adminToken: `{"id":"admin","role":"admin","admin":true}`,
		"beta-token": `{"id":"partner:beta","role":"partner","admin":false,"partnerId":"beta"}`} {
		w := serve(s.handler, request(http.MethodGet, "/api/me", "", token))
		require.Equal(t, http.StatusOK, w.Code)
		assert.JSONEq(t, want, w.Body.String())
	}
}

// partnerAnswer is a partner of GET /api/partners and GET
// /api/partners/{partnerId}/endpoint.
type partnerAnswer struct {
	store.PartnerEndpoint
	Config struct {
		Name        string `json:"name"`
		DeliveryURL string `json:"deliveryUrl"`
		Webhooks    []struct {
			Provider        string `json:"provider"`
			Path            string `json:"path"`
			SignatureScheme string `json:"signatureScheme"`
		} `json:"webhooks"`
	} `json:"config"`
}

func TestAPartnersEndpointShowsItsConfigurationToItsOwnTokenOnly(t *testing.T) {
	s := newAPIStack(t)
	endpoint := func(token, id string) (int, partnerAnswer, string) {
		w := serve(s.handler, request(http.MethodGet, "/api/partners/"+id+"/endpoint", "", token))
		var p partnerAnswer
		require.NoError(t, json.Unmarshal(w.Body.Bytes(), &p), w.Body.String())
		return w.Code, p, w.Body.String()
	}
	for _, token := range []string{adminToken, "acme-token"} {
		code, p, body := endpoint(token, "acme")
		require.Equal(t, http.StatusOK, code, body)
		assert.Equal(t, "closed", p.State)
		assert.Equal(t, "Acme Corp", p.Config.Name)
		assert.Equal(t, "https://REDACTED@hooks.acme.example/streamops?key=REDACTED", p.Config.DeliveryURL)
		require.Len(t, p.Config.Webhooks, 1)
		assert.Equal(t, "/webhooks/acme", p.Config.Webhooks[0].Path)
		assert.Equal(t, "hmac", p.Config.Webhooks[0].SignatureScheme)
		assert.NotContains(t, body, "s3cret")
		assert.Contains(t, body, `"rateLimit":2.5`)
		assert.Contains(t, body, `"maxInFlight":4`)
	}
	code, _, body := endpoint("beta-token", "acme")
	assert.Equal(t, http.StatusForbidden, code)
	assert.NotContains(t, body, "acme.example", "another partner's endpoint is not shown")

	code, _, body = endpoint(adminToken, "beta")
	require.Equal(t, http.StatusOK, code)
	assert.NotContains(t, body, `"config"`, "beta is not configured: no configuration to show")
	assert.Contains(t, body, `"rateLimit":null`, "unlimited")
	assert.Contains(t, body, `"maxInFlight":null`)

	started, err := s.Store.HoldPartner(context.Background(), "acme",
		store.Hold{Until: time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC), StatusCode: 429, RetryAfter: "7"}, time.Now())
	require.NoError(t, err)
	require.True(t, started)
	code, p, body := endpoint(adminToken, "acme")
	require.Equal(t, http.StatusOK, code)
	require.NotNil(t, p.HoldUntil, body)
	assert.Equal(t, time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC), p.HoldUntil.UTC())
	assert.Equal(t, 429, p.HoldStatusCode)
	assert.Equal(t, "7", p.HoldRetryAfter)
}

func serve(h http.Handler, r *http.Request) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}
