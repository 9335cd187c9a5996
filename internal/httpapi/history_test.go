package httpapi_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/history"
	"github.com/streamops/streamops/internal/httpapi"
	"github.com/streamops/streamops/internal/objects"
	"github.com/streamops/streamops/internal/status"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/submit"
	"github.com/streamops/streamops/internal/testenv"
)

// historyStack is the API over thousands of stored events across types,
// services, users and two partners' executions: 2,000 in CI, 10,000 with
// testenv.VolumeEnv=full.
type historyStack struct {
	*testenv.Env
	handler   http.Handler
	replayer  *history.Replayer
	events    []events.Envelope // in (timestamp, eventId) order
	exportTo  string
	byPartner map[string][]string // partner -> execution ids
}

var (
	historyOnce sync.Once
	historyEnv  *historyStack
)

var eventTypes = []events.Type{
	events.WorkflowCreated, events.WorkflowProcessing, events.WorkflowStepCompleted, events.WorkflowCompleted,
	events.TaskCreated, events.TaskProcessing, events.TaskCompleted, events.TaskFailed,
}

func newHistoryStack(t *testing.T) *historyStack {
	return newHistoryStackOf(t, testenv.Volume(2_000, 10_000))
}

// newHistoryStackOf is newHistoryStack with n events (a multiple of 1,000).
func newHistoryStackOf(t testing.TB, n int) *historyStack {
	env := testenv.New(t, testenv.Options{})
	ctx := context.Background()
	h := &historyStack{Env: env, exportTo: t.TempDir(), byPartner: map[string][]string{}}
	partnerOf := map[string]string{} // execution id -> partner, as ingest stamps metadata.partnerId
	for _, partner := range []string{"acme", "beta"} {
		for i := range 5 {
			wev, err := env.Store.InsertWebhookEvent(ctx, store.WebhookEvent{Provider: partner,
				ProviderEventID: fmt.Sprintf("%s-%d", partner, i), EventType: "OR_MGMT", Payload: store.JSONDoc(`{}`)})
			require.NoError(t, err)
			h.byPartner[partner] = append(h.byPartner[partner], wev.EventID)
			partnerOf[wev.EventID] = partner
		}
	}
	executions := append(append([]string{}, h.byPartner["acme"]...), h.byPartner["beta"]...)
	base := time.Date(2026, 1, 4, 0, 0, 0, 0, time.UTC)
	services := []string{"api-gateway", "event-processor", "webhook"}
	for i := range n {
		typ := eventTypes[i%len(eventTypes)]
		key := fmt.Sprintf("%08d", i%400) // 400 aggregates, 25 events each
		payload := map[string]any{"n": i}
		if typ.Topic() == events.TopicWorkflows {
			payload["workflowId"] = "wf-00000000-0000-4000-8000-0000" + key
		} else {
			payload["taskId"] = "task-00000000-0000-4000-8000-0000" + key
		}
		raw, _ := json.Marshal(payload)
		meta := &events.Metadata{Source: services[i%3], UserID: events.String(fmt.Sprintf("user-%d", i%10))}
		if i%7 == 0 {
			meta.CorrelationID = executions[i%len(executions)]
			meta.PartnerID = partnerOf[meta.CorrelationID]
		}
		h.events = append(h.events, events.Envelope{EventType: typ, EventID: fmt.Sprintf("evt-%08d-0000-4000-8000-%012d", i, i),
			Timestamp: events.At(base.Add(time.Duration(i/2) * time.Second)), SchemaVersion: events.SchemaVersion,
			Payload: raw, Metadata: meta})
	}
	for i := 0; i < n; i += 1000 {
		_, err := env.Store.InsertEvents(ctx, h.events[i:i+1000])
		require.NoError(t, err)
	}
	svc, err := submit.New(env.Store, env.Emitter, submit.Limits{}, nil, env.Logger)
	require.NoError(t, err)
	h.replayer = &history.Replayer{Store: env.Store, Emitter: env.Emitter, Logger: env.Logger}
	h.handler = httpapi.API(httpapi.APIConfig{Submit: svc, Store: env.Store, Logger: env.Logger,
		Replayer: h.replayer,
		Exporter: &history.Exporter{Store: env.Store, Objects: objects.Files{Dir: h.exportTo},
			InlineLimit: 256 << 10, SpillDir: t.TempDir(), Logger: env.Logger},
		Auth: httpapi.TokenAuth{AdminToken: adminToken, PartnerTokens: map[string]string{"acme-token": "acme", "beta-token": "beta"}}})
	return h
}

func (h *historyStack) get(t *testing.T, token, path string) (int, []byte) {
	r := httptest.NewRequest(http.MethodGet, path, nil)
	if token != "" {
		r.Header.Set("Authorization", "Bearer "+token)
	}
	w := httptest.NewRecorder()
	h.handler.ServeHTTP(w, r)
	return w.Code, w.Body.Bytes()
}

// browseAll pages through /api/events with query q, a tenth of the
// history a page, and returns event ids in the order visited.
func (h *historyStack) browseAll(t *testing.T, token string, q url.Values, during func()) []string {
	var ids []string
	q.Set("limit", fmt.Sprint(max(100, len(h.events)/10)))
	for page := 0; ; page++ {
		status, body := h.get(t, token, "/api/events?"+q.Encode())
		require.Equal(t, http.StatusOK, status, string(body))
		var p struct {
			Events     []events.Envelope `json:"events"`
			NextCursor string            `json:"nextCursor"`
		}
		require.NoError(t, json.Unmarshal(body, &p))
		for _, e := range p.Events {
			ids = append(ids, e.EventID)
		}
		if during != nil && page == 1 {
			during()
		}
		if p.NextCursor == "" {
			return ids
		}
		q.Set("cursor", p.NextCursor)
	}
}

func (h *historyStack) want(keep func(i int, e events.Envelope) bool) []string {
	var ids []string
	for i, e := range h.events {
		if keep(i, e) {
			ids = append(ids, e.EventID)
		}
	}
	return ids
}

func TestEventHistoryOverManyPages(t *testing.T) {
	if testing.Short() {
		t.Skip("thousands of events: in the full run, not in -short (the race run)")
	}
	h := newHistoryStack(t)
	base := h.events[0].Timestamp.Time
	n := len(h.events) // event i is at base + i/2 s
	at := func(i int) string { return base.Add(time.Duration(i/2) * time.Second).Format(time.RFC3339Nano) }

	t.Run("EveryFilterFieldNarrows", func(t *testing.T) {
		tests := []struct {
			name  string
			query url.Values
			keep  func(i int, e events.Envelope) bool
		}{
			{"no filter", url.Values{}, func(int, events.Envelope) bool { return true }},
			{"event_ids", url.Values{"event_ids": {h.events[3].EventID + "," + h.events[n-1].EventID}},
				func(i int, _ events.Envelope) bool { return i == 3 || i == n-1 }},
			{"execution_id", url.Values{"execution_id": {h.byPartner["acme"][2]}},
				func(_ int, e events.Envelope) bool { return e.Metadata.CorrelationID == h.byPartner["acme"][2] }},
			{"aggregate_id", url.Values{"aggregate_id": {h.events[17].AggregateID()}},
				func(_ int, e events.Envelope) bool { return e.AggregateID() == h.events[17].AggregateID() }},
			{"event_types", url.Values{"event_types": {"task.failed,workflow.created"}},
				func(_ int, e events.Envelope) bool {
					return e.EventType == events.TaskFailed || e.EventType == events.WorkflowCreated
				}},
			{"exclude_event_types", url.Values{"exclude_event_types": {"task.failed"}},
				func(_ int, e events.Envelope) bool { return e.EventType != events.TaskFailed }},
			{"exclusion with inclusion", url.Values{"event_types": {"task.failed,task.completed"}, "exclude_event_types": {"task.completed"}},
				func(_ int, e events.Envelope) bool { return e.EventType == events.TaskFailed }},
			{"start_time", url.Values{"start_time": {at(n * 4 / 5)}},
				func(i int, _ events.Envelope) bool { return i >= n*4/5 }},
			{"end_time", url.Values{"end_time": {at(199)}},
				func(i int, _ events.Envelope) bool { return i < 200 }},
			{"user_id", url.Values{"user_id": {"user-3"}}, func(i int, _ events.Envelope) bool { return i%10 == 3 }},
			{"service_name", url.Values{"service_name": {"webhook"}}, func(i int, _ events.Envelope) bool { return i%3 == 2 }},
			{"all together", url.Values{"service_name": {"api-gateway"}, "user_id": {"user-0"}, "event_types": {"workflow.created"},
				"end_time": {at(n / 2)}},
				func(i int, e events.Envelope) bool {
					return i%3 == 0 && i%10 == 0 && e.EventType == events.WorkflowCreated && i/2 <= n/4
				}},
		}
		covered := map[string]bool{}
		for _, tc := range tests {
			for name := range tc.query {
				covered[name] = true
			}
		}
		for _, f := range store.FilterFields() {
			assert.True(t, covered[f.Name], "EveryFilterFieldNarrows has a row for the filter %s", f.Name)
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				want := h.want(tc.keep)
				require.NotEmpty(t, want)
				got := h.browseAll(t, adminToken, tc.query, nil)
				assert.Equal(t, want, got)
			})
		}
	})

	t.Run("PaginationVisitsEachEventOnceWhileEventsArrive", func(t *testing.T) {
		arrived := make(chan []string, 1)
		got := h.browseAll(t, adminToken, url.Values{}, func() {
			var late []events.Envelope
			for i := range 50 { // inserted mid-walk, before and after the cursor
				ts := base.Add(time.Duration(i*n/50) * time.Second)
				late = append(late, events.Envelope{EventType: events.TaskDeadLetter, EventID: "evt-" + uuid.NewString(),
					Timestamp: events.At(ts), SchemaVersion: events.SchemaVersion,
					Payload: json.RawMessage(fmt.Sprintf(`{"taskId":"task-late-%d"}`, i))})
			}
			_, err := h.Store.InsertEvents(context.Background(), late)
			require.NoError(t, err)
			var ids []string
			for _, e := range late {
				ids = append(ids, e.EventID)
			}
			arrived <- ids
		})
		late := <-arrived
		seen := map[string]int{}
		for _, id := range got {
			seen[id]++
		}
		for _, e := range h.events {
			assert.Equal(t, 1, seen[e.EventID], "event %s visited once", e.EventID)
		}
		for _, id := range late {
			assert.LessOrEqual(t, seen[id], 1, "a late event is visited at most once")
		}
		assert.Len(t, seen, len(got), "no event twice")
		n, err := h.Store.CountEvents(context.Background(), store.ReplayFilter{EventIDs: late})
		require.NoError(t, err)
		require.EqualValues(t, 50, n)
	})

	t.Run("ExportStreamsEveryEventToAFile", func(t *testing.T) {
		code, body := h.get(t, adminToken, "/api/events/export?format=ndjson&event_types="+strings.Join(typeNames(), ","))
		require.Equal(t, http.StatusOK, code, string(body))
		var res struct {
			URL    string `json:"url"`
			Events int    `json:"events"`
		}
		require.NoError(t, json.Unmarshal(body, &res))
		assert.Equal(t, n, res.Events)
		require.True(t, strings.HasPrefix(res.URL, "file://"), "too large to answer inline: a link")
		f, err := os.Open(strings.TrimPrefix(res.URL, "file://"))
		require.NoError(t, err)
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		lines := 0
		for sc.Scan() {
			var env events.Envelope
			require.NoError(t, json.Unmarshal(sc.Bytes(), &env), "line %d is an event", lines)
			require.NotEmpty(t, env.EventID)
			lines++
		}
		assert.Equal(t, n, lines)

		code, small := h.get(t, adminToken, "/api/events/export?format=csv&user_id=user-1&event_types=task.failed")
		require.Equal(t, http.StatusOK, code)
		rows := strings.Split(strings.TrimSpace(string(small)), "\n")
		assert.Equal(t, "event_id,event_type,timestamp,aggregate_id,execution_id,service_name,user_id,payload", rows[0])
		assert.Len(t, rows, 1+len(h.want(func(i int, e events.Envelope) bool { return i%10 == 1 && e.EventType == events.TaskFailed })))
	})

	t.Run("DryRunCountEqualsTheReplayAndReplayKeepsPerKeyOrder", func(t *testing.T) {
		h.CreateTopic(t, "workflows.replay")
		filter := `{"event_types":["workflow.created","workflow.processing","workflow.step.completed","workflow.completed"],"user_id":"user-4"}`
		code, body := h.post(t, "/api/replays", `{"dryRun":true,"filter":`+filter+`}`)
		require.Equal(t, http.StatusOK, code, string(body))
		var dry struct {
			Count  int64             `json:"count"`
			Sample []events.Envelope `json:"sample"`
		}
		require.NoError(t, json.Unmarshal(body, &dry))
		assert.Len(t, dry.Sample, history.SampleSize)

		code, body = h.post(t, "/api/replays", `{"filter":`+filter+`,"targetTopic":"workflows.replay","ratePerSecond":100000}`)
		require.Equal(t, http.StatusAccepted, code, string(body))
		var started httpapi.ReplayResponse
		require.NoError(t, json.Unmarshal(body, &started))
		assert.Equal(t, dry.Count, started.TotalEvents, "the snapshot is what the dry run counted")
		rs := awaitReplay(t, h.handler, h.replayer, started.SessionID)
		assert.Equal(t, status.ReplayCompleted, rs.Status)
		assert.Equal(t, dry.Count, rs.ReplayedEvents, "the dry run counted what the replay published")
		assert.Equal(t, dry.Count, rs.TotalEvents)

		code, body = h.get(t, adminToken, "/api/replays/"+rs.SessionID)
		require.Equal(t, http.StatusOK, code)
		assert.Contains(t, string(body), `"replayed_events":`+fmt.Sprint(dry.Count))

		original := map[string]int{}
		for i, e := range h.events {
			original[e.EventID] = i
		}
		records := h.Records(t, "workflows.replay")
		require.Len(t, records, int(dry.Count))
		last := map[string]int{}
		for _, r := range records {
			var e events.Envelope
			require.NoError(t, json.Unmarshal(r.Value, &e))
			assert.Equal(t, e.AggregateID(), string(r.Key))
			require.NotEmpty(t, e.Metadata.ReplayOf)
			pos, ok := original[e.Metadata.ReplayOf]
			require.True(t, ok)
			key := e.AggregateID()
			if prev, seen := last[key]; seen {
				assert.Greater(t, pos, prev, "per key, replayed in original order")
			}
			last[key] = pos
		}
	})

	t.Run("PartnerTokensSeeOnlyTheirOwnEvents", func(t *testing.T) {
		acme := h.browseAll(t, "acme-token", url.Values{}, nil)
		want := h.want(func(_ int, e events.Envelope) bool {
			return slices.Contains(h.byPartner["acme"], e.Metadata.CorrelationID)
		})
		require.NotEmpty(t, want)
		// Replays are stored like every published event, so acme also
		// sees the replays of its own events (they carry its partnerId).
		for _, r := range h.Records(t, "workflows.replay") {
			var e events.Envelope
			require.NoError(t, json.Unmarshal(r.Value, &e))
			if slices.Contains(want, e.Metadata.ReplayOf) {
				want = append(want, e.EventID)
			}
		}
		assert.ElementsMatch(t, want, acme)
		beta := h.browseAll(t, "beta-token", url.Values{"execution_id": {h.byPartner["acme"][0]}}, nil)
		assert.Empty(t, beta, "beta asking for acme's execution gets nothing")

		for _, tc := range []struct {
			token, path string
			code        int
		}{
			{"beta-token", "/api/partners/acme/events", http.StatusForbidden},
			{"beta-token", "/api/partners/acme/endpoint", http.StatusForbidden},
			{"acme-token", "/api/partners/acme/endpoint", http.StatusOK},
			{"acme-token", "/api/replays/x", http.StatusForbidden},
			{"acme-token", "/api/stats", http.StatusForbidden},
			{"", "/api/events", http.StatusUnauthorized},
			{"not-a-token", "/api/events", http.StatusUnauthorized},
			{"", "/api/openapi.json", http.StatusOK},
		} {
			code, body := h.get(t, tc.token, tc.path)
			assert.Equal(t, tc.code, code, "%s %s: %s", tc.token, tc.path, body)
		}
	})

	t.Run("StatsCountByTypeAndStatus", func(t *testing.T) {
		code, body := h.get(t, adminToken, "/api/stats")
		require.Equal(t, http.StatusOK, code, string(body))
		var st struct {
			Collections map[string]map[string]map[string]int64 `json:"collections"`
		}
		require.NoError(t, json.Unmarshal(body, &st))
		assert.EqualValues(t, len(h.want(func(_ int, e events.Envelope) bool { return e.EventType == events.TaskFailed })),
			st.Collections["events"]["event_type"]["task.failed"])
		assert.EqualValues(t, 10, st.Collections["webhook_events"]["status"]["received"])
		code, _ = h.get(t, adminToken, "/api/stats?window=forever")
		assert.Equal(t, http.StatusBadRequest, code)
	})
}

func (h *historyStack) post(t *testing.T, path, body string) (int, []byte) {
	r := httptest.NewRequest(http.MethodPost, path, strings.NewReader(body))
	r.Header.Set("Authorization", "Bearer "+adminToken)
	w := httptest.NewRecorder()
	h.handler.ServeHTTP(w, r)
	return w.Code, w.Body.Bytes()
}

func typeNames() []string {
	out := make([]string, len(eventTypes))
	for i, t := range eventTypes {
		out[i] = string(t)
	}
	return out
}
