package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/fault"
	"github.com/streamops/streamops/internal/local"
	"github.com/streamops/streamops/internal/status"
	"github.com/streamops/streamops/internal/workflow"
)

// counted wraps a step, counting its calls; failing, while set, makes it
// fail the workflow as a step with a bug (or a dependency gone for good)
// does.
type counted struct {
	calls   atomic.Int32
	failing atomic.Bool
	step    workflow.StepFunc
}

func (c *counted) run(ctx context.Context, in workflow.StepInput) (workflow.StepOutput, error) {
	c.calls.Add(1)
	if c.failing.Load() {
		return workflow.StepOutput{}, fault.Permanent(workflow.CodeTransform, "mapping service refused the records")
	}
	return c.step(ctx, in)
}

// workflowDoc is what the test reads of GET /api/workflows/{id}.
type workflowDoc struct {
	Status           string `json:"status"`
	Attempt          int    `json:"attempt"`
	CurrentStepIndex int    `json:"currentStepIndex"`
	StepResults      []struct {
		StepName    string    `json:"stepName"`
		CompletedAt time.Time `json:"completedAt"`
	} `json:"stepResults"`
	Reruns []struct {
		Attempt  int    `json:"attempt"`
		FromStep string `json:"fromStep"`
	} `json:"reruns"`
}

// TestRerunFromTheFailedStepAfterTheCauseIsFixed: a workflow fails in
// transform; once the cause is gone, a rerun (POST
// /api/workflows/{id}/rerun, the same Idempotency-Key twice) runs
// transform and store as attempt 2 and completes, validate's stored result
// taken as it is (validate is not called again), every event of the new
// run carrying metadata.attempt 2 beside the first run's events.
func TestRerunFromTheFailedStepAfterTheCauseIsFixed(t *testing.T) {
	validate := &counted{step: workflow.ValidateStep}
	transform := &counted{step: workflow.TransformStep}
	transform.failing.Store(true)
	s := start(t, "", nil, local.WithSteps(map[string]workflow.StepFunc{"validate": validate.run, "transform": transform.run}))

	var receipt struct{ WorkflowID string }
	require.Equal(t, http.StatusCreated, s.call("POST", "/api/workflows",
		[]byte(`{"name":"Rerun e2e","steps":["validate","transform","store"],"priority":"medium","input":{"records":[{"id":1},{"id":2}]}}`), nil, &receipt))
	id := receipt.WorkflowID
	var wf workflowDoc
	get := func() workflowDoc {
		var out workflowDoc
		require.Equal(t, http.StatusOK, s.call("GET", "/api/workflows/"+id, nil, nil, &out))
		return out
	}
	s.eventually(10*time.Second, func() bool { wf = get(); return wf.Status == status.WorkflowFailed }, "the workflow fails in transform")
	require.Equal(t, 1, wf.CurrentStepIndex)
	require.Len(t, wf.StepResults, 1)
	validated := wf.StepResults[0].CompletedAt

	transform.failing.Store(false) // the cause is fixed
	key := http.Header{"Idempotency-Key": {"rerun-e2e-1"}}
	var first, again workflowDoc
	require.Equal(t, http.StatusAccepted, s.call("POST", "/api/workflows/"+id+"/rerun", nil, key, &first))
	assert.Equal(t, 2, first.Attempt)
	require.Equal(t, http.StatusAccepted, s.call("POST", "/api/workflows/"+id+"/rerun", nil, key, &again))
	assert.Equal(t, 2, again.Attempt, "the same key answers the same rerun")

	s.eventually(10*time.Second, func() bool { wf = get(); return wf.Status == status.WorkflowCompleted }, "the rerun completes")
	assert.Equal(t, 2, wf.Attempt)
	require.Len(t, wf.Reruns, 1, "one rerun for the two requests")
	assert.Equal(t, "transform", wf.Reruns[0].FromStep)
	require.Len(t, wf.StepResults, 3)
	assert.True(t, validated.Equal(wf.StepResults[0].CompletedAt), "validate's stored result is taken as it is")
	assert.Equal(t, int32(1), validate.calls.Load(), "validate is not run again")
	assert.Equal(t, int32(2), transform.calls.Load(), "transform ran once per attempt")

	evs := s.events(url.Values{"aggregate_id": {id}})
	byAttempt := map[int][]events.Type{}
	for _, e := range evs {
		attempt := 1
		if e.Metadata != nil && e.Metadata.Attempt > 0 {
			attempt = e.Metadata.Attempt
		}
		byAttempt[attempt] = append(byAttempt[attempt], e.EventType)
	}
	assert.Equal(t, []events.Type{events.WorkflowCreated, events.WorkflowProcessing, events.WorkflowStepCompleted, events.WorkflowFailed}, byAttempt[1])
	assert.Equal(t, []events.Type{events.WorkflowCreated, events.WorkflowProcessing, events.WorkflowStepCompleted, events.WorkflowStepCompleted,
		events.WorkflowCompleted}, byAttempt[2], "attempt 2: announced, started at transform, transform and store, completed")
	for _, e := range evs {
		if e.EventType == events.WorkflowProcessing && e.Metadata.Attempt == 2 {
			var p events.WorkflowProcessingPayload
			require.NoError(t, json.Unmarshal(e.Payload, &p))
			assert.Equal(t, "transform", p.CurrentStep)
		}
	}

	var conflict struct {
		Error struct{ Code string } `json:"error"`
	}
	assert.Equal(t, http.StatusConflict, s.call("POST", "/api/workflows/"+id+"/rerun", nil, nil, &conflict),
		"a completed workflow needs a step named")
	assert.Equal(t, "status_conflict", conflict.Error.Code)

	// A completed workflow reruns from a named step: store's records are
	// computed again in memory (validate and transform run without
	// writes or events), the results before it stay as they are.
	transformed := wf.StepResults[1].CompletedAt
	var third workflowDoc
	require.Equal(t, http.StatusAccepted, s.call("POST", "/api/workflows/"+id+"/rerun", []byte(`{"fromStep":"store"}`), nil, &third))
	assert.Equal(t, 3, third.Attempt)
	s.eventually(10*time.Second, func() bool { wf = get(); return wf.Status == status.WorkflowCompleted && wf.Attempt == 3 }, "the second rerun completes")
	require.Len(t, wf.StepResults, 3)
	assert.True(t, transformed.Equal(wf.StepResults[1].CompletedAt), "transform's stored result is taken as it is")
	var attempt3 []events.Type
	for _, e := range s.events(url.Values{"aggregate_id": {id}}) {
		if e.Metadata != nil && e.Metadata.Attempt == 3 {
			attempt3 = append(attempt3, e.EventType)
		}
	}
	assert.Equal(t, []events.Type{events.WorkflowCreated, events.WorkflowProcessing, events.WorkflowStepCompleted, events.WorkflowCompleted}, attempt3)
}
