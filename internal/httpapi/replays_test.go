package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/history"
	"github.com/streamops/streamops/internal/httpapi"
	"github.com/streamops/streamops/internal/status"
	"github.com/streamops/streamops/internal/testenv"
)

// adminDo sends an admin request to h.
func adminDo(h http.Handler, method, path, body string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(method, path, strings.NewReader(body))
	r.Header.Set("Authorization", "Bearer "+adminToken)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// getReplay is GET /api/replays/{id}: the session, and its JSON as a map
// (to see which keys it has).
func getReplay(t testing.TB, h http.Handler, id string) (httpapi.ReplayResponse, map[string]any) {
	t.Helper()
	w := adminDo(h, http.MethodGet, "/api/replays/"+id, "")
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	var rs httpapi.ReplayResponse
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &rs))
	var raw map[string]any
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &raw))
	return rs, raw
}

// awaitReplay drives r as the retry-sweeper does, one RunDue a tick, and
// polls GET /api/replays/{id} on h until the session ends; it returns the
// session as the API answers it then.
func awaitReplay(t testing.TB, h http.Handler, r *history.Replayer, id string) httpapi.ReplayResponse {
	t.Helper()
	for range 200 {
		_, err := r.RunDue(context.Background())
		require.NoError(t, err)
		if rs, _ := getReplay(t, h, id); status.ReplayIsFinal(rs.Status) {
			return rs
		}
		time.Sleep(50 * time.Millisecond) // a runner of another test may hold the lease
	}
	t.Fatalf("the replay %s never ended", id)
	return httpapi.ReplayResponse{}
}

// replayWindow is when the events seedReplayable stores happened.
var replayWindow = time.Date(2026, 5, 1, 8, 0, 0, 0, time.UTC)

// seedReplayable stores n workflow.created events and returns the
// request filter (JSON) that selects them.
func seedReplayable(t *testing.T, env *testenv.Env, n int) string {
	t.Helper()
	envs := make([]events.Envelope, n)
	for i := range envs {
		wf := fmt.Sprintf("wf-00000000-0000-4000-8000-%012d", i)
		envs[i] = events.Envelope{EventType: events.WorkflowCreated, EventID: fmt.Sprintf("evt-00000000-0000-4000-8000-%012d", i),
			Timestamp: events.At(replayWindow.Add(time.Duration(i) * time.Millisecond)), SchemaVersion: events.SchemaVersion,
			Payload: json.RawMessage(`{"workflowId":"` + wf + `","name":"w","steps":["validate"],"priority":"low","createdAt":"2026-05-01T08:00:00.000Z"}`)}
	}
	_, err := env.Store.InsertEvents(context.Background(), envs)
	require.NoError(t, err)
	return fmt.Sprintf(`{"event_types":["workflow.created"],"start_time":%q,"end_time":%q}`,
		replayWindow.Format(time.RFC3339Nano), replayWindow.Add(time.Hour).Format(time.RFC3339Nano))
}

// A replay is a job: POST answers 202 at once with the session's Location,
// as stored (running, nothing replayed, the snapshot's size); the
// retry-sweeper's RunDue replays it; GET shows how far it got.
func TestStartingAReplayAnswers202WithItsLocation(t *testing.T) {
	s := replayAPI(t, testenv.New(t, testenv.Options{}))
	filter := seedReplayable(t, s.Env, 30)
	for _, c := range []struct {
		name, body string
		rate       float64
	}{
		{"the default rate", `{"filter":` + filter + `}`, history.DefaultReplayRate},
		{"a rate of its own", `{"filter":` + filter + `,"ratePerSecond":2500.5}`, 2500.5},
		{"the highest rate", `{"filter":` + filter + `,"ratePerSecond":100000}`, history.MaxReplayRate},
		{"a rate below one a second", `{"filter":` + filter + `,"ratePerSecond":0.5}`, 0.5},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := adminDo(s.handler, http.MethodPost, "/api/replays", c.body)
			require.Equal(t, http.StatusAccepted, w.Code, w.Body.String())
			var rs httpapi.ReplayResponse
			require.NoError(t, json.Unmarshal(w.Body.Bytes(), &rs))
			assert.Regexp(t, `^replay-[0-9a-f-]{36}$`, rs.SessionID)
			assert.Equal(t, "/api/replays/"+rs.SessionID, w.Header().Get("Location"))
			assert.Equal(t, status.ReplayRunning, rs.Status)
			assert.EqualValues(t, 30, rs.TotalEvents, "the snapshot's size")
			assert.Zero(t, rs.ReplayedEvents)
			assert.Equal(t, c.rate, rs.Config.RatePerSecond)
			assert.False(t, rs.SnapshotAt.IsZero())
			assert.Equal(t, httpapi.ReplayProgress{Done: 0, Total: 30}, rs.Progress)

			got, _ := getReplay(t, s.handler, rs.SessionID)
			assert.Equal(t, rs.SessionID, got.SessionID, "the Location is the session")
			assert.Equal(t, status.ReplayRunning, got.Status, "nothing runs it but the retry-sweeper")
		})
	}
}

// GET /api/replays/{id} shows the progress: done of total, percent, the
// observed rate and the time left while it runs; no time left once it
// ended.
func TestAReplayShowsItsProgress(t *testing.T) {
	s := replayAPI(t, testenv.New(t, testenv.Options{}))
	ctx := context.Background()
	filter := seedReplayable(t, s.Env, 30)
	w := adminDo(s.handler, http.MethodPost, "/api/replays", `{"filter":`+filter+`}`)
	require.Equal(t, http.StatusAccepted, w.Code, w.Body.String())
	var started httpapi.ReplayResponse
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &started))

	// A runner a third of the way through: its checkpoint after the first
	// 10 events of the snapshot, as RunDue stores it.
	held, err := s.Store.ClaimReplaySession(ctx, "runner-test", time.Minute)
	require.NoError(t, err)
	require.Equal(t, started.SessionID, held.ID)
	snapshot := held.Config.Filter
	snapshot = snapshot.WithSnapshot(held.SnapshotAt, held.ID)
	first, next, err := s.Store.FindEvents(ctx, snapshot, nil, 10)
	require.NoError(t, err)
	require.Len(t, first, 10)
	time.Sleep(20 * time.Millisecond) // the rate is over the time from the claim to the checkpoint
	held.ReplayedEvents, held.Cursor = 10, next
	require.NoError(t, s.Store.SaveReplayCheckpoint(ctx, held, time.Now().Add(time.Minute)))

	running, raw := getReplay(t, s.handler, started.SessionID)
	assert.Equal(t, status.ReplayRunning, running.Status)
	p := running.Progress
	assert.EqualValues(t, 10, p.Done)
	assert.EqualValues(t, 30, p.Total)
	assert.InDelta(t, 100.0/3, p.Percent, 0.01)
	assert.Positive(t, p.RatePerSecond)
	require.NotNil(t, p.ETASeconds, "a running replay with a rate has a time left: %v", raw["progress"])
	assert.InDelta(t, 20/p.RatePerSecond, *p.ETASeconds, 0.001, "what is left at the observed rate")

	// The runner gives the session up (as RunDue does before its deadline);
	// the next runner continues from the checkpoint.
	require.NoError(t, s.Store.SaveReplayCheckpoint(ctx, held, time.Now()))
	ended := awaitReplay(t, s.handler, s.replayer, started.SessionID)
	_, raw = getReplay(t, s.handler, started.SessionID)
	assert.Equal(t, status.ReplayCompleted, ended.Status)
	assert.Len(t, s.Envelopes(t, events.TopicWorkflows), 20, "the next runner replayed what the first had not")
	assert.EqualValues(t, 30, ended.Progress.Done)
	assert.EqualValues(t, 30, ended.Progress.Total)
	assert.EqualValues(t, 100, ended.Progress.Percent)
	assert.Positive(t, ended.Progress.RatePerSecond)
	assert.NotContains(t, raw["progress"], "eta_seconds", "an ended replay has no time left")
	assert.NotNil(t, ended.CompletedAt)
}

// GET /api/replays lists the newest sessions first, 20 unless limit says
// otherwise (1 to 100); any other limit is a 400 naming it.
func TestReplaysAreListedNewestFirst(t *testing.T) {
	s := replayAPI(t, testenv.New(t, testenv.Options{}))
	filter := seedReplayable(t, s.Env, 1)
	var ids []string // oldest first
	for range httpapi.DefaultReplayLimit + 1 {
		w := adminDo(s.handler, http.MethodPost, "/api/replays", `{"filter":`+filter+`}`)
		require.Equal(t, http.StatusAccepted, w.Code, w.Body.String())
		var rs httpapi.ReplayResponse
		require.NoError(t, json.Unmarshal(w.Body.Bytes(), &rs))
		ids = append(ids, rs.SessionID)
	}
	newest := make([]string, len(ids))
	for i, id := range ids {
		newest[len(ids)-1-i] = id
	}
	list := func(query string) []string {
		w := adminDo(s.handler, http.MethodGet, "/api/replays"+query, "")
		require.Equal(t, http.StatusOK, w.Code, w.Body.String())
		var page struct {
			Replays []httpapi.ReplayResponse `json:"replays"`
		}
		require.NoError(t, json.Unmarshal(w.Body.Bytes(), &page))
		out := []string{}
		for _, rs := range page.Replays {
			out = append(out, rs.SessionID)
		}
		return out
	}
	for _, c := range []struct {
		query string
		want  []string
	}{
		{"", newest[:httpapi.DefaultReplayLimit]},
		{"?limit=1", newest[:1]},
		{"?limit=5", newest[:5]},
		{"?limit=100", newest},
	} {
		assert.Equal(t, c.want, list(c.query), "GET /api/replays%s", c.query)
	}
	for _, bad := range []string{"0", "-1", "101", "x", "1.5", "9999999999999999999"} {
		w := adminDo(s.handler, http.MethodGet, "/api/replays?limit="+bad, "")
		require.Equal(t, http.StatusBadRequest, w.Code, "limit=%s: %s", bad, w.Body)
		var body httpapi.ErrorBody
		require.NoError(t, json.Unmarshal(w.Body.Bytes(), &body), "limit=%s", bad)
		assert.Equal(t, "invalid_parameter", body.Error.Code, "limit=%s", bad)
		assert.Equal(t, "limit", body.Error.Field, "limit=%s", bad)
	}
}

// POST /api/replays/{id}/cancel: a running session ends cancelled (and
// answers so again), its runner replays nothing more; a session that
// ended otherwise is a 409, an unknown one a 404.
func TestCancellingAReplay(t *testing.T) {
	s := replayAPI(t, testenv.New(t, testenv.Options{}))
	filter := seedReplayable(t, s.Env, 5)
	start := func() string {
		w := adminDo(s.handler, http.MethodPost, "/api/replays", `{"filter":`+filter+`,"targetTopic":"workflows.cancelled"}`)
		require.Equal(t, http.StatusAccepted, w.Code, w.Body.String())
		var rs httpapi.ReplayResponse
		require.NoError(t, json.Unmarshal(w.Body.Bytes(), &rs))
		return rs.SessionID
	}
	s.CreateTopic(t, "workflows.cancelled")
	cancelled := start()
	completedID := start()
	// The first is cancelled before a runner takes it; the second runs to
	// its end.
	w := adminDo(s.handler, http.MethodPost, "/api/replays/"+cancelled+"/cancel", "")
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	completed := awaitReplay(t, s.handler, s.replayer, completedID)
	require.Equal(t, status.ReplayCompleted, completed.Status)

	for _, c := range []struct {
		name, id string
		want     int
		code     string
		status   string
	}{
		{"cancelled again", cancelled, http.StatusOK, "", status.ReplayCancelled},
		{"completed", completedID, http.StatusConflict, "status_conflict", status.ReplayCompleted},
		{"unknown", "replay-00000000-0000-7000-8000-000000000000", http.StatusNotFound, "not_found", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := adminDo(s.handler, http.MethodPost, "/api/replays/"+c.id+"/cancel", "")
			require.Equal(t, c.want, w.Code, w.Body.String())
			if c.want != http.StatusOK {
				var body httpapi.ErrorBody
				require.NoError(t, json.Unmarshal(w.Body.Bytes(), &body))
				assert.Equal(t, c.code, body.Error.Code)
				assert.Equal(t, c.status, body.Error.Status)
			}
			if c.status != "" {
				got, _ := getReplay(t, s.handler, c.id)
				assert.Equal(t, c.status, got.Status, "left as it was")
			}
		})
	}

	rs, _ := getReplay(t, s.handler, cancelled)
	assert.Equal(t, status.ReplayCancelled, rs.Status)
	assert.Zero(t, rs.ReplayedEvents, "no runner replayed the cancelled session")
	assert.NotNil(t, rs.CompletedAt)
	require.Len(t, rs.Errors, 1, "the one Cancelled error, whatever the cancels")
	assert.Equal(t, history.ErrTypeCancelled, rs.Errors[0].ErrorType)
	assert.Empty(t, rs.Errors[0].EventID, "a session-level error")
	assert.Nil(t, rs.Progress.ETASeconds)
	assert.Len(t, s.Records(t, "workflows.cancelled"), 5, "only the completed session's copies")
}

// ratePerSecond outside (0, 100000], or not a number, is a 400 naming
// it, and nothing is stored.
func TestAReplayRateOutOfRangeIsRefused(t *testing.T) {
	s := replayAPI(t, testenv.New(t, testenv.Options{}))
	filter := seedReplayable(t, s.Env, 1)
	for _, c := range []struct{ rate, code string }{
		{"0", "invalid_parameter"},
		{"-1", "invalid_parameter"},
		{"100001", "invalid_parameter"},
		{"1e309", "invalid_payload"},
		{`"x"`, "invalid_payload"},
		{`"500"`, "invalid_payload"},
		{"true", "invalid_payload"},
		{"[500]", "invalid_payload"},
	} {
		for _, dry := range []bool{false, true} {
			body := fmt.Sprintf(`{"filter":%s,"dryRun":%t,"ratePerSecond":%s}`, filter, dry, c.rate)
			w := adminDo(s.handler, http.MethodPost, "/api/replays", body)
			require.Equal(t, http.StatusBadRequest, w.Code, "ratePerSecond %s (dryRun %t): %s", c.rate, dry, w.Body)
			var eb httpapi.ErrorBody
			require.NoError(t, json.Unmarshal(w.Body.Bytes(), &eb))
			assert.Equal(t, c.code, eb.Error.Code, "ratePerSecond %s", c.rate)
			assert.Contains(t, eb.Error.Message, "ratePerSecond", "ratePerSecond %s: the message names it", c.rate)
			assert.Equal(t, "ratePerSecond", eb.Error.Field, "ratePerSecond %s", c.rate)
		}
	}
	w := adminDo(s.handler, http.MethodGet, "/api/replays", "")
	require.Equal(t, http.StatusOK, w.Code)
	assert.JSONEq(t, `{"replays":[]}`, w.Body.String(), "nothing was stored")
}
