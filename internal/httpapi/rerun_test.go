package httpapi_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/status"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/store/storetest"
	"github.com/streamops/streamops/internal/submit"
	"github.com/streamops/streamops/internal/testenv"
)

// endedWorkflow submits a validate, transform, store workflow and stores
// it as ended: failed in transform (index 1, its records kept) or
// completed, as the workflow-processor would.
func endedWorkflow(t *testing.T, s *apiStack, key, ended string) string {
	t.Helper()
	resp := s.call(t, "POST", "/api/workflows", `{"name":"Rerun me","steps":["validate","transform","store"],"priority":"low","input":{"records":[{"id":1}]}}`,
		"Idempotency-Key", key)
	require.Equal(t, http.StatusCreated, resp.status, resp.body)
	id := resp.body["workflowId"].(string)
	now := time.Now().UTC()
	done := func(i int, name string) store.StepProgress {
		return store.StepProgress{StepName: name, StepIndex: i, CompletedAt: now, Result: store.JSONDoc(`{"recordsProcessed":1}`)}
	}
	cp := store.WorkflowCheckpoint{Workflow: store.Workflow{WorkflowID: id, Status: ended, StartedAt: &now, CompletedAt: &now,
		CurrentStepIndex: 1, StepResults: []store.StepProgress{done(0, "validate")},
		Error: &events.WorkflowError{Code: "TRANSFORM_ERROR", Message: "field missing", Stack: "x"}},
		ResumeRecords: []store.JSONDoc{store.JSONDoc(`{"id":1}`)}}
	if ended == status.WorkflowCompleted {
		cp.CurrentStepIndex, cp.Error, cp.ResumeRecords = 3, nil, nil
		cp.StepResults = append(cp.StepResults, done(1, "transform"), done(2, "store"))
	}
	n, err := s.Store.SaveWorkflowCheckpoints(context.Background(), cp)
	require.NoError(t, err)
	require.Equal(t, 1, n)
	return id
}

// TestRerunRefusalsSayWhatToFix is the table of reruns refused: each a 4xx
// JSON error naming what to fix, nothing stored, nothing published.
func TestRerunRefusalsSayWhatToFix(t *testing.T) {
	s := newAPIStack(t)
	failed := endedWorkflow(t, s, "failed", status.WorkflowFailed)
	completed := endedWorkflow(t, s, "completed", status.WorkflowCompleted)
	pending := s.call(t, "POST", "/api/workflows", `{"name":"Waiting","steps":["validate"],"priority":"low"}`).body["workflowId"].(string)
	tests := []struct {
		name, id, body   string
		status           int
		code, field, msg string
	}{
		{"unknown workflow", "wf-nope", ``, http.StatusNotFound, "not_found", "", "wf-nope"},
		{"still running (pending)", pending, ``, http.StatusConflict, "status_conflict", "status", "still pending"},
		{"completed, no fromStep", completed, ``, http.StatusConflict, "status_conflict", "status", "nothing failed, name the step"},
		{"completed, empty fromStep", completed, `{"fromStep":""}`, http.StatusConflict, "status_conflict", "status", "fromStep"},
		{"unknown step", failed, `{"fromStep":"bake"}`, http.StatusBadRequest, "validation_failed", "fromStep", `unknown step "bake"`},
		{"a step not in this workflow", failed, `{"fromStep":"deliver"}`, http.StatusBadRequest, "validation_failed", "fromStep", "not a step of workflow"},
		{"a step after the failed one", failed, `{"fromStep":"store"}`, http.StatusBadRequest, "validation_failed", "fromStep", "never produced"},
		{"unknown body field", failed, `{"from":"transform"}`, http.StatusBadRequest, "invalid_payload", "", "from"},
		{"not JSON", failed, `fromStep=transform`, http.StatusBadRequest, "invalid_payload", "", ""},
		{"fromStep not a string", failed, `{"fromStep":1}`, http.StatusBadRequest, "invalid_payload", "", "fromStep"},
	}
	before := len(s.Records(t, events.TopicWorkflows))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := s.call(t, "POST", "/api/workflows/"+tt.id+"/rerun", tt.body)
			require.Equal(t, tt.status, got.status, got.body)
			assert.Equal(t, tt.code, errorCode(got))
			e := got.body["error"].(map[string]any)
			assert.Contains(t, e["message"], tt.msg)
			if tt.field != "" {
				assert.Equal(t, tt.field, e["field"])
			}
		})
	}
	for _, id := range []string{failed, completed} {
		wf, err := s.Store.GetWorkflow(context.Background(), id)
		require.NoError(t, err)
		assert.Empty(t, wf.Reruns, "a refused rerun stores nothing")
		assert.NotEqual(t, status.WorkflowPending, wf.Status)
	}
	assert.Len(t, s.Records(t, events.TopicWorkflows), before, "and publishes nothing")
	forbidden := s.call(t, "POST", "/api/workflows/"+failed+"/rerun", ``, "Authorization", "Bearer acme-token")
	assert.Equal(t, http.StatusForbidden, forbidden.status, "reruns are for admins")
}

// TestRerunStartsANewAttemptOnce: a rerun of a failed workflow stores
// attempt 2 pending at the failed step with the records it was given, and
// publishes one workflow.created carrying metadata.attempt; the same
// Idempotency-Key answers the same rerun, another request is refused
// while it runs, and a completed workflow reruns from a named step.
func TestRerunStartsANewAttemptOnce(t *testing.T) {
	s := newAPIStack(t)
	id := endedWorkflow(t, s, "failed", status.WorkflowFailed)
	before := len(s.Envelopes(t, events.TopicWorkflows))

	first := s.call(t, "POST", "/api/workflows/"+id+"/rerun", ``, "Idempotency-Key", "rerun-1")
	require.Equal(t, http.StatusAccepted, first.status, first.body)
	assert.Equal(t, float64(2), first.body["attempt"])
	assert.Equal(t, "pending", first.body["status"])
	assert.Equal(t, float64(1), first.body["currentStepIndex"], "from the failed step")
	assert.Nil(t, first.body["error"], "the first run's error is gone with it")
	assert.Len(t, first.body["stepResults"], 1, "validate's result is kept as it is")
	reruns := first.body["reruns"].([]any)
	require.Len(t, reruns, 1)
	assert.Equal(t, "transform", reruns[0].(map[string]any)["fromStep"])
	assert.Equal(t, "failed", reruns[0].(map[string]any)["previousStatus"])

	again := s.call(t, "POST", "/api/workflows/"+id+"/rerun", ``, "Idempotency-Key", "rerun-1")
	assert.Equal(t, first, again, "the same key answers the same rerun")
	other := s.call(t, "POST", "/api/workflows/"+id+"/rerun", `{"fromStep":"validate"}`, "Idempotency-Key", "rerun-1")
	assert.Equal(t, http.StatusUnprocessableEntity, other.status, "the same key for another rerun")
	assert.Equal(t, "idempotency_key_reused", errorCode(other))
	running := s.call(t, "POST", "/api/workflows/"+id+"/rerun", ``)
	assert.Equal(t, http.StatusConflict, running.status, "without a key, a workflow running again is a conflict")

	published := s.Envelopes(t, events.TopicWorkflows)[before:]
	require.Len(t, published, 1, "one rerun, one workflow.created")
	assert.Equal(t, events.WorkflowCreated, published[0].EventType)
	assert.Equal(t, 2, published[0].Metadata.Attempt)
	assert.Equal(t, id, published[0].AggregateID())
	cps, err := s.Store.GetWorkflowCheckpoints(context.Background(), []string{id})
	require.NoError(t, err)
	assert.Equal(t, []store.JSONDoc{store.JSONDoc(`{"id":1}`)}, cps[id].ResumeRecords, "transform reads what it was given")
	assert.False(t, cps[id].RederiveInput)

	done := endedWorkflow(t, s, "completed", status.WorkflowCompleted)
	fromStore := s.call(t, "POST", "/api/workflows/"+done+"/rerun", `{"fromStep":"store"}`)
	require.Equal(t, http.StatusAccepted, fromStore.status, fromStore.body)
	assert.Equal(t, float64(2), fromStore.body["currentStepIndex"])
	assert.Len(t, fromStore.body["stepResults"], 2)
	cps, err = s.Store.GetWorkflowCheckpoints(context.Background(), []string{done})
	require.NoError(t, err)
	assert.True(t, cps[done].RederiveInput, "store's records were not kept: the processor computes them again")
}

// TestARerunAfterTheRetentionIsGone: once a failed workflow's retention
// (STREAMOPS_WORKFLOWS_TTL) deleted it, with the records its failed step
// read, a rerun answers 410 expired saying so, not a 5xx nor a 404 that
// suggests a wrong id; an id that never existed is still 404.
func TestARerunAfterTheRetentionIsGone(t *testing.T) {
	storetest.Require(t, storetest.FastTTL)
	env := testenv.New(t, testenv.Options{Store: store.Config{ExpireInterval: 20 * time.Millisecond,
		Retention: store.Retention{Workflows: time.Second}}})
	svc, err := submit.New(env.Store, env.Emitter, submit.Limits{}, nil, env.Logger)
	require.NoError(t, err)
	s := &apiStack{Env: env, handler: apiHandler(env, svc)}
	failed := endedWorkflow(t, s, "failed", status.WorkflowFailed)
	require.Eventually(t, func() bool {
		_, err := s.Store.GetWorkflow(context.Background(), failed)
		return errors.Is(err, store.ErrNotFound)
	}, 30*time.Second, 20*time.Millisecond, "the retention deletes the failed workflow")

	got := s.call(t, "POST", "/api/workflows/"+failed+"/rerun", ``)
	require.Equal(t, http.StatusGone, got.status, got.body)
	assert.Equal(t, "expired", errorCode(got))
	assert.Contains(t, got.body["error"].(map[string]any)["message"], "STREAMOPS_WORKFLOWS_TTL")
	unknown := s.call(t, "POST", "/api/workflows/wf-never/rerun", ``)
	assert.Equal(t, http.StatusNotFound, unknown.status, unknown.body)
}
