package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/history"
	"github.com/streamops/streamops/internal/httpapi"
	"github.com/streamops/streamops/internal/stacktest"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/stream/deadletterstatus"
)

func TestBulkRequeueOfAHundredDeadLettersDeliversAndRecordsEach(t *testing.T) {
	env := stacktest.New(t, stacktest.Options{})
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
	api := &apiStack{Env: env, handler: httpapi.API(httpapi.APIConfig{Store: env.Store, Logger: env.Logger,
		Requeuer: &history.Requeuer{Store: env.Store, Publisher: env.Bus},
		Auth:     httpapi.TokenAuth{AdminToken: adminToken}})}

	resp := api.call(t, "POST", "/api/dead-letters/requeue", `{"topic":"tasks","limit":1000}`)
	require.Equal(t, http.StatusAccepted, resp.status, resp.body)
	assert.Equal(t, float64(100), resp.body["requeued"])

	recs := env.Records(t, events.TopicTasks)
	assert.Len(t, recs, 100, "one new delivery per dead letter")
	for _, r := range recs {
		var from string
		for _, h := range r.Headers {
			if h.Key == history.HeaderRequeuedFrom {
				from = string(h.Value)
			}
		}
		assert.NotEmpty(t, from, "each requeued record names its dead letter")
	}
	listed, _, err := env.Store.ListDeadLetters(ctx, store.DeadLetterQuery{Topic: events.TopicTasks, Limit: 1000})
	require.NoError(t, err)
	require.Len(t, listed, 100)
	for _, dl := range listed {
		assert.Equal(t, 1, dl.RequeueAttempts, "the requeue is recorded as an attempt")
		assert.Equal(t, deadletterstatus.Replayed, dl.Status)
		assert.NotNil(t, dl.LastRequeuedAt)
	}
	again := api.call(t, "POST", "/api/dead-letters/requeue", `{"topic":"tasks"}`)
	assert.Equal(t, float64(0), again.body["requeued"], "only open dead letters by default")

	page := api.call(t, "GET", "/api/dead-letters?topic=workflows", "")
	require.Equal(t, http.StatusOK, page.status)
	raw, _ := json.Marshal(page.body["deadLetters"])
	assert.Contains(t, string(raw), `"status":"open"`)
}
