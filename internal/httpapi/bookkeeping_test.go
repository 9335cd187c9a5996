package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/history"
	"github.com/streamops/streamops/internal/httpapi"
	"github.com/streamops/streamops/internal/status"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/submit"
	"github.com/streamops/streamops/internal/testenv"
)

// replayAPI is the API on env with workflow submission, replays and
// dead-letter requeues.
func replayAPI(t *testing.T, env *testenv.Env) *apiStack {
	sub, err := submit.New(env.Store, env.Emitter, submit.Limits{}, nil, env.Logger)
	require.NoError(t, err)
	replayer := &history.Replayer{Store: env.Store, Emitter: env.Emitter, Logger: env.Logger}
	return &apiStack{Env: env, replayer: replayer, handler: httpapi.API(httpapi.APIConfig{Submit: sub, Store: env.Store, Logger: env.Logger,
		Replayer: replayer,
		Requeuer: &history.Requeuer{Store: env.Store, Publisher: env.Bus},
		Auth:     httpapi.TokenAuth{AdminToken: adminToken}})}
}

// historyIDs is GET /api/events?<query>: the ids of the events it lists.
func historyIDs(t *testing.T, s *apiStack, query string) map[string]events.Envelope {
	resp := s.call(t, "GET", "/api/events?"+query+"&limit=1000", "")
	require.Equal(t, http.StatusOK, resp.status, resp.body)
	raw, err := json.Marshal(resp.body["events"])
	require.NoError(t, err)
	var envs []events.Envelope
	require.NoError(t, json.Unmarshal(raw, &envs))
	out := map[string]events.Envelope{}
	for _, e := range envs {
		out[e.EventID] = e
	}
	return out
}

// recordIDs are the eventIds of the records on topic.
func recordIDs(t *testing.T, env *testenv.Env, topic string) []string {
	var ids []string
	for _, r := range env.Records(t, topic) {
		var e events.Envelope
		require.NoError(t, json.Unmarshal(r.Value, &e))
		ids = append(ids, e.EventID)
	}
	return ids
}

// Every event that reaches a topic is stored first: after a replay (to the
// events' own topic and to a target topic) and a dead-letter requeue, every
// record on the topics is an event GET /api/events shows.
func TestReplayedAndRequeuedEventsAreInTheHistory(t *testing.T) {
	env := testenv.New(t, testenv.Options{})
	env.CreateTopic(t, "workflows.replay")
	ctx := context.Background()
	s := replayAPI(t, env)

	created := s.call(t, "POST", "/api/workflows", `{"name":"n","steps":["validate"],"priority":"low"}`)
	require.Equal(t, http.StatusCreated, created.status, created.body)
	original := created.body["eventId"].(string)

	// A task.created that reached the topic from outside (kcat) and was
	// dead-lettered: never stored until now.
	outside, err := events.NewEvent(events.TaskCreatedPayload{TaskID: events.NewTaskID(), Type: events.TaskDataExport,
		Data: []byte(`{"format":"csv"}`), MaxRetries: 3, CreatedAt: events.Now()}, &events.Metadata{Source: "kcat"})
	require.NoError(t, err)
	value, err := json.Marshal(outside)
	require.NoError(t, err)
	_, err = env.Store.InsertDeadLetters(ctx, store.DeadLetterEntry{Processor: "task-processor", Topic: events.TopicTasks,
		Offset: 3, Key: outside.AggregateID(), Value: value, Reason: "processing-failed", Error: "boom"})
	require.NoError(t, err)

	steps := []struct {
		name, method, path, body string
		status                   int
	}{
		{"replay to the events' own topic", "POST", "/api/replays", `{"filter":{"event_ids":["` + original + `"]}}`, http.StatusAccepted},
		{"replay to a target topic", "POST", "/api/replays", `{"filter":{"event_ids":["` + original + `"]},"targetTopic":"workflows.replay"}`, http.StatusAccepted},
		{"requeue a dead letter", "POST", "/api/dead-letters/" + store.DeadLetterID(events.TopicTasks, 0, 3) + "/requeue", "", http.StatusAccepted},
	}
	for _, st := range steps {
		resp := s.call(t, st.method, st.path, st.body)
		require.Equal(t, st.status, resp.status, "%s: %v", st.name, resp.body)
		if st.path == "/api/replays" {
			rs := awaitReplay(t, s.handler, s.replayer, resp.body["session_id"].(string))
			require.Equal(t, status.ReplayCompleted, rs.Status, "%s: %+v", st.name, rs)
		}
	}

	all := historyIDs(t, s, "")
	for _, topic := range []string{events.TopicWorkflows, "workflows.replay", events.TopicTasks} {
		ids := recordIDs(t, env, topic)
		require.NotEmpty(t, ids, topic)
		for _, id := range ids {
			assert.Contains(t, all, id, "the record %s on %s is in the history", id, topic)
		}
	}
	replays := 0
	for _, e := range all {
		if e.Metadata != nil && e.Metadata.ReplayOf == original {
			replays++
		}
	}
	assert.Equal(t, 2, replays, "both replays of the workflow.created are in the history")
	assert.Contains(t, all, outside.EventID, "the requeued event is in the history")
	assert.Len(t, recordIDs(t, env, events.TopicWorkflows), 2, "the original and its replay")

	pending, err := env.Store.UnpublishedEvents(ctx, time.Now().Add(time.Hour), 10)
	require.NoError(t, err)
	assert.Empty(t, pending, "everything stored was published and marked")
}

func TestBulkRequeueOfAHundredDeadLettersDeliversAndRecordsEach(t *testing.T) {
	env := testenv.New(t, testenv.Options{})
	ctx := context.Background()
	var dls []store.DeadLetterEntry
	for i := range 100 {
		dls = append(dls, store.DeadLetterEntry{Processor: "task-processor", Topic: events.TopicTasks, Partition: int32(i % 3),
			Offset: int64(i), Key: fmt.Sprintf("task-%d", i), Value: []byte(fmt.Sprintf(`{"broken":%d`, i)),
			Headers: []store.DeadLetterHeader{{Key: "content-type", Value: "application/json"}},
			Reason:  "undecodable", Error: "unexpected end of JSON input"})
	}
	dls = append(dls, store.DeadLetterEntry{Processor: "workflow-processor", Topic: events.TopicWorkflows, Offset: 7,
		Value: []byte("x"), Reason: "undecodable", Error: "not JSON"})
	_, err := env.Store.InsertDeadLetters(ctx, dls...)
	require.NoError(t, err)
	api := replayAPI(t, env)

	resp := api.call(t, "POST", "/api/dead-letters/requeue", `{"topic":"tasks","limit":1000}`)
	require.Equal(t, http.StatusAccepted, resp.status, resp.body)
	assert.Equal(t, float64(100), resp.body["requeued"])

	recs := env.Records(t, events.TopicTasks)
	assert.Len(t, recs, 100, "one new delivery per dead letter")
	for _, r := range recs {
		assert.NotEmpty(t, testenv.Header(r, history.HeaderRequeuedFrom), "each requeued record names its dead letter")
	}
	listed, _, err := env.Store.ListDeadLetters(ctx, store.DeadLetterQuery{Topic: events.TopicTasks, Limit: 1000})
	require.NoError(t, err)
	require.Len(t, listed, 100)
	for _, dl := range listed {
		assert.Equal(t, 1, dl.RequeueAttempts, "the requeue is recorded as an attempt")
		assert.Equal(t, status.DeadLetterReplayed, dl.Status)
		assert.NotNil(t, dl.LastRequeuedAt)
	}
	again := api.call(t, "POST", "/api/dead-letters/requeue", `{"topic":"tasks"}`)
	assert.Equal(t, float64(0), again.body["requeued"], "only open dead letters by default")

	page := api.call(t, "GET", "/api/dead-letters?topic=workflows", "")
	require.Equal(t, http.StatusOK, page.status)
	raw, _ := json.Marshal(page.body["deadLetters"])
	assert.Contains(t, string(raw), `"status":"open"`)
}
