package e2e

import (
	"cmp"
	"net/http"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/local"
	"github.com/streamops/streamops/internal/status"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/testenv"
)

// TestEveryEventARequestCausesCarriesItsPrincipal: an API submission, a
// replay and a webhook event's retry stamp the principal of their token as
// metadata.userId on every event they cause, down to the lifecycle events
// the processors emit, the retries the retry-sweeper emits and the task a
// workflow's notify step starts; a webhook delivery's events carry none.
// GET /api/events?user_id= (seed 001's filter on the indexed
// metadata.user_id) then answers exactly each principal's events.
func TestEveryEventARequestCausesCarriesItsPrincipal(t *testing.T) {
	const aliceToken = "e2e-alice-token"
	s := startWith(t, "", nil, func(c *local.Config) { c.AdminTokens = "alice=" + aliceToken })
	alice := testenv.API{URL: s.URL(), Token: aliceToken}

	var me struct {
		ID, Role string
		Admin    bool
	}
	require.Equal(t, http.StatusOK, alice.Call(t, "GET", "/api/me", nil, nil, &me))
	assert.Equal(t, "alice", me.ID)
	assert.Equal(t, "admin", me.Role)
	assert.True(t, me.Admin, "the console's flag is kept")

	// alice: a workflow whose notify step starts a task, and a task that
	// fails once, so the retry-sweeper emits its retry.
	var wf struct{ WorkflowID string }
	require.Equal(t, http.StatusCreated, alice.Call(t, "POST", "/api/workflows", []byte(`{"name":"Identity","steps":["validate","notify"],`+
		`"priority":"low","input":{"records":[{"n":1}],"notify":{"recipient":"ops@example.com","subject":"done"}}}`), nil, &wf))
	var aliceTask struct{ TaskID string }
	require.Equal(t, http.StatusCreated, alice.Call(t, "POST", "/api/tasks",
		[]byte(`{"type":"report_generation","data":{"failTimes":1},"maxRetries":3}`), nil, &aliceTask))
	// admin (STREAMOPS_ADMIN_TOKEN, the principal "admin"): a task.
	var adminTask struct{ TaskID string }
	require.Equal(t, http.StatusCreated, s.call("POST", "/api/tasks", []byte(`{"type":"report_generation","data":{}}`), nil, &adminTask))
	// A webhook delivery: no user.
	var hook receipt
	body := testenv.Testdata(t, "webhooks/stripe-invoice-finalized.json")
	require.Equal(t, http.StatusAccepted, s.call("POST", "/webhooks/stripe", body, s.signedStripe(body), &hook))

	s.eventually(30*time.Second, func() bool {
		var w store.Workflow
		var t1, t2 store.Task
		s.call("GET", "/api/workflows/"+wf.WorkflowID, nil, nil, &w)
		s.call("GET", "/api/tasks/"+aliceTask.TaskID, nil, nil, &t1)
		s.call("GET", "/api/tasks/"+adminTask.TaskID, nil, nil, &t2)
		return w.Status == status.WorkflowCompleted && t1.Status == status.TaskCompleted && t2.Status == status.TaskCompleted &&
			webhookStatus(s, hook.WebhookEventID) == status.WebhookCompleted
	}, "the executions did not complete")
	notifyTask := events.DeriveID(events.TaskIDPrefix, wf.WorkflowID, "notify", "1")
	s.eventually(20*time.Second, func() bool {
		return typesOf(s.events(url.Values{"aggregate_id": {notifyTask}}))[events.TaskCompleted] == 1
	}, "the notify step's task %s did not complete", notifyTask)

	// alice replays the admin's task and asks for a new attempt of the
	// webhook event. The
	// replay is a job the retry-sweeper runs on its next tick.
	var replay struct {
		SessionID string `json:"session_id"`
		Status    string `json:"status"`
	}
	require.Equal(t, http.StatusAccepted, alice.Call(t, "POST", "/api/replays",
		[]byte(`{"filter":{"aggregate_id":"`+adminTask.TaskID+`","event_types":["task.completed"]}}`), nil, &replay))
	require.Equal(t, http.StatusConflict, alice.Call(t, "POST", "/api/webhook-events/"+hook.WebhookEventID+"/retry", nil, nil, nil),
		"a completed run is not started again by a plain retry")
	require.Equal(t, http.StatusAccepted, alice.Call(t, "POST", "/api/webhook-events/"+hook.WebhookEventID+"/retry",
		[]byte(`{"newAttempt":true,"reason":"identity check"}`), nil, nil))
	s.eventually(30*time.Second, func() bool {
		require.Equal(t, http.StatusOK, alice.Call(t, "GET", "/api/replays/"+replay.SessionID, nil, nil, &replay))
		return replay.Status != status.ReplayRunning
	}, "the replay %s did not end", replay.SessionID)
	require.Equal(t, status.ReplayCompleted, replay.Status)
	var retried []events.Envelope
	s.eventually(30*time.Second, func() bool {
		retried = s.events(url.Values{"execution_id": {hook.WebhookEventID}, "event_types": {string(events.WorkflowCompleted)}})
		return len(retried) == 2
	}, "the retried webhook event's second workflow did not complete: %d", len(retried))

	byUser := map[string][]string{}
	for _, e := range s.events(url.Values{}) {
		byUser[userOf(e)] = append(byUser[userOf(e)], e.EventID)
	}
	for _, user := range []string{"alice", "admin"} {
		var got []string
		for _, e := range s.events(url.Values{"user_id": {user}}) {
			got = append(got, e.EventID)
		}
		assert.ElementsMatch(t, byUser[user], got, "user_id=%s answers exactly the events that carry it", user)
	}

	// Whose is each execution's every event.
	owner := func(q url.Values) map[string]int {
		out := map[string]int{}
		for _, e := range s.events(q) {
			out[userOf(e)+" "+string(e.EventType)]++
		}
		return out
	}
	assert.Equal(t, map[string]int{"alice workflow.created": 1, "alice workflow.processing": 1, "alice workflow.step.completed": 2,
		"alice workflow.completed": 1}, owner(url.Values{"aggregate_id": {wf.WorkflowID}}), "alice's workflow")
	assert.Equal(t, map[string]int{"alice task.created": 1, "alice task.processing": 1, "alice task.completed": 1},
		owner(url.Values{"aggregate_id": {notifyTask}}), "the task alice's workflow started")
	assert.Equal(t, map[string]int{"alice task.created": 1, "alice task.processing": 2, "alice task.failed": 1, "alice task.completed": 1},
		owner(url.Values{"aggregate_id": {aliceTask.TaskID}}), "alice's task, its retry by the retry-sweeper included (driven by its task.failed: one task.created)")
	assert.Equal(t, map[string]int{"admin task.created": 1, "admin task.processing": 1, "admin task.completed": 1, "alice task.completed": 1},
		owner(url.Values{"aggregate_id": {adminTask.TaskID}}), "the admin's task, and its replay by alice")

	// The webhook delivery's events have no user; the run alice's retry
	// started is hers.
	hookEvents := s.events(url.Values{"execution_id": {hook.WebhookEventID}})
	runs := map[string]string{} // workflowId → its events' users
	for _, e := range hookEvents {
		user := cmp.Or(userOf(e), "-")
		if e.EventType == events.WebhookReceived {
			assert.Equal(t, "-", user, "webhook.received is the delivery's, it has no user")
			continue
		}
		id := e.AggregateID()
		if prev, seen := runs[id]; seen {
			assert.Equal(t, prev, user, "every event of workflow %s has one user", id)
		}
		runs[id] = user
	}
	users := slices.Sorted(func(yield func(string) bool) {
		for _, u := range runs {
			if !yield(u) {
				return
			}
		}
	})
	assert.Equal(t, []string{"-", "alice"}, users, "the delivery's workflow has no user, the retry's is alice's")
}

// userOf is e's metadata.userId, "" when it has none.
func userOf(e events.Envelope) string {
	if e.Metadata == nil {
		return ""
	}
	return e.Metadata.UserID.Value
}
