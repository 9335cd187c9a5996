package submit_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
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
	"github.com/streamops/streamops/internal/tracing"
)

type harness struct {
	env   *testenv.Env
	clock *storetest.Clock
	svc   *submit.Service
}

// newHarness is a Service with the default limits over a real store
// (storetest's engine) and a kfake broker, on a fixed clock.
func newHarness(t *testing.T) *harness {
	t.Helper()
	env := testenv.New(t, testenv.Options{})
	clock := storetest.NewClock()
	svc, err := submit.New(env.Store, env.Emitter, submit.Limits{}, clock.Now, env.Logger)
	require.NoError(t, err)
	return &harness{env: env, clock: clock, svc: svc}
}

// stored counts the workflows, the tasks and the events stored, and the
// records published to either topic.
func (h *harness) stored(t *testing.T) (workflows, tasks, evs, records int) {
	t.Helper()
	ctx := context.Background()
	count := func(collection string) int {
		byStatus, err := h.env.Store.CountBy(ctx, collection, "status", "", time.Time{})
		require.NoError(t, err)
		n := 0
		for _, c := range byStatus {
			n += int(c)
		}
		return n
	}
	n, err := h.env.Store.CountEvents(ctx, store.ReplayFilter{})
	require.NoError(t, err)
	return count("workflows"), count("tasks"), int(n),
		len(h.env.Records(t, events.TopicWorkflows)) + len(h.env.Records(t, events.TopicTasks))
}

// requireRefused checks err is a *ValidationError on field whose reason
// contains reason (the API's 400), and that nothing was stored or
// published.
func (h *harness) requireRefused(t *testing.T, err error, field, reason string) {
	t.Helper()
	verr, ok := errors.AsType[*submit.ValidationError](err)
	require.True(t, ok, "a *ValidationError, got %v", err)
	assert.Equal(t, field, verr.Field)
	assert.Contains(t, verr.Reason, reason)
	wfs, tasks, evs, recs := h.stored(t)
	assert.Equal(t, [4]int{}, [4]int{wfs, tasks, evs, recs}, "nothing stored or published")
}

func validWorkflow() submit.WorkflowRequest {
	return submit.WorkflowRequest{Name: "Data Processing Pipeline", Steps: []string{"validate", "transform", "store"}, Priority: "high",
		Input: json.RawMessage(`{"source":"s3://bucket/file.csv"}`)}
}

func validTask() submit.TaskRequest {
	return submit.TaskRequest{Type: string(events.TaskEmailNotification), Data: json.RawMessage(`{"recipient":"user@example.com"}`)}
}

func intp(n int) *int { return &n }

func TestNewRefusesMissingDependenciesAndLimitsTheBrokersCannotCarry(t *testing.T) {
	env := testenv.New(t, testenv.Options{})
	_, err := submit.New(nil, env.Emitter, submit.Limits{}, nil, nil)
	assert.ErrorContains(t, err, "required")
	_, err = submit.New(env.Store, nil, submit.Limits{}, nil, nil)
	assert.ErrorContains(t, err, "required")
	_, err = submit.New(env.Store, env.Emitter, submit.Limits{MaxInputBytes: 2 << 20}, nil, nil)
	assert.ErrorContains(t, err, "MaxInputBytes")
	svc, err := submit.New(env.Store, env.Emitter, submit.Limits{}, nil, nil)
	require.NoError(t, err)
	assert.NotNil(t, svc)
}

// TestSubmitWorkflowRefusesEveryInvalidRequestWithNothingStored: each
// rule and limit is a *ValidationError naming the field (the API's 400),
// and nothing is stored or published.
func TestSubmitWorkflowRefusesEveryInvalidRequestWithNothingStored(t *testing.T) {
	tests := []struct {
		name       string
		change     func(*submit.WorkflowRequest)
		wantField  string
		wantReason string
	}{
		{"no name", func(r *submit.WorkflowRequest) { r.Name = "" }, "name", "is required"},
		{"blank name", func(r *submit.WorkflowRequest) { r.Name = " \t\n" }, "name", "is required"},
		{"name over the limit", func(r *submit.WorkflowRequest) { r.Name = strings.Repeat("n", submit.DefaultMaxNameBytes+1) }, "name",
			"STREAMOPS_MAX_WORKFLOW_NAME_BYTES"},
		{"no steps", func(r *submit.WorkflowRequest) { r.Steps = nil }, "steps", "at least one step"},
		{"empty steps", func(r *submit.WorkflowRequest) { r.Steps = []string{} }, "steps", "at least one step"},
		{"too many steps", func(r *submit.WorkflowRequest) {
			r.Steps = make([]string, submit.DefaultMaxSteps+1)
			for i := range r.Steps {
				r.Steps[i] = "validate"
			}
		}, "steps", "STREAMOPS_MAX_WORKFLOW_STEPS"},
		{"unknown step", func(r *submit.WorkflowRequest) { r.Steps = []string{"validate", "teleport"} }, "steps[1]", `unknown step "teleport"`},
		{"empty step", func(r *submit.WorkflowRequest) { r.Steps = []string{""} }, "steps[0]", "unknown step"},
		{"no priority", func(r *submit.WorkflowRequest) { r.Priority = "" }, "priority", "must be one of low, medium, high"},
		{"unknown priority", func(r *submit.WorkflowRequest) { r.Priority = "urgent" }, "priority", `(got "urgent")`},
		{"priority in capitals", func(r *submit.WorkflowRequest) { r.Priority = "HIGH" }, "priority", "must be one of"},
		{"input an array", func(r *submit.WorkflowRequest) { r.Input = json.RawMessage(`[1,2]`) }, "input", "must be a JSON object"},
		{"input a string", func(r *submit.WorkflowRequest) { r.Input = json.RawMessage(`"x"`) }, "input", "must be a JSON object"},
		{"input null", func(r *submit.WorkflowRequest) { r.Input = json.RawMessage(`null`) }, "input", "must be a JSON object"},
		{"input over the limit", func(r *submit.WorkflowRequest) {
			r.Input = json.RawMessage(`{"pad":"` + strings.Repeat("x", submit.DefaultMaxInputBytes) + `"}`)
		}, "input", "STREAMOPS_MAX_WORKFLOW_INPUT_BYTES"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			req := validWorkflow()
			tc.change(&req)
			receipt, err := h.svc.SubmitWorkflow(context.Background(), req, submit.Caller{UserID: "user-1", IdempotencyKey: "key-1"})
			assert.Equal(t, submit.WorkflowReceipt{}, receipt)
			h.requireRefused(t, err, tc.wantField, tc.wantReason)
		})
	}
}

func TestSubmitTaskRefusesEveryInvalidRequestWithNothingStored(t *testing.T) {
	tests := []struct {
		name       string
		change     func(*submit.TaskRequest)
		wantField  string
		wantReason string
	}{
		{"no type", func(r *submit.TaskRequest) { r.Type = "" }, "type", `unknown task type ""`},
		{"unknown type", func(r *submit.TaskRequest) { r.Type = "fax" }, "type", "known types: "},
		{"type in capitals", func(r *submit.TaskRequest) { r.Type = "DATA_EXPORT" }, "type", "unknown task type"},
		{"no data", func(r *submit.TaskRequest) { r.Data = nil }, "data", "is required and must be a JSON object"},
		{"data null", func(r *submit.TaskRequest) { r.Data = json.RawMessage(`null`) }, "data", "must be a JSON object"},
		{"data an array", func(r *submit.TaskRequest) { r.Data = json.RawMessage(`[]`) }, "data", "must be a JSON object"},
		{"data a number", func(r *submit.TaskRequest) { r.Data = json.RawMessage(`7`) }, "data", "must be a JSON object"},
		{"data over the limit", func(r *submit.TaskRequest) {
			r.Data = json.RawMessage(`{"pad":"` + strings.Repeat("x", submit.DefaultMaxTaskDataBytes) + `"}`)
		}, "data", "STREAMOPS_MAX_TASK_DATA_BYTES"},
		{"negative maxRetries", func(r *submit.TaskRequest) { r.MaxRetries = intp(-1) }, "maxRetries", "between 0 and 20"},
		{"maxRetries over 20", func(r *submit.TaskRequest) { r.MaxRetries = intp(21) }, "maxRetries", "between 0 and 20"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			req := validTask()
			tc.change(&req)
			receipt, err := h.svc.SubmitTask(context.Background(), req, submit.Caller{IdempotencyKey: "key-1"})
			assert.Equal(t, submit.TaskReceipt{}, receipt)
			h.requireRefused(t, err, tc.wantField, tc.wantReason)
		})
	}
}

// TestSubmitWorkflowStoresThePendingWorkflowThenPublishesItsCreatedEvent
// checks what is stored and what is published, with and without a
// principal.
func TestSubmitWorkflowStoresThePendingWorkflowThenPublishesItsCreatedEvent(t *testing.T) {
	tests := []struct {
		name     string
		user     string
		wantUser events.NullString
	}{
		{"no principal: userId null", "", events.Null},
		{"a principal", "user-7", events.String("user-7")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			ctx := context.Background()
			req := validWorkflow()
			receipt, err := h.svc.SubmitWorkflow(ctx, req, submit.Caller{UserID: tc.user})
			require.NoError(t, err)
			assert.True(t, strings.HasPrefix(receipt.WorkflowID, events.WorkflowIDPrefix), receipt.WorkflowID)
			assert.Equal(t, status.WorkflowPending, receipt.Status)
			assert.Equal(t, events.DeriveID(events.EventIDPrefix, receipt.WorkflowID, string(events.WorkflowCreated)), receipt.EventID)

			wf, err := h.env.Store.GetWorkflow(ctx, receipt.WorkflowID)
			require.NoError(t, err)
			assert.Equal(t, req.Name, wf.Name)
			assert.Equal(t, req.Steps, wf.Steps)
			assert.Equal(t, req.Priority, wf.Priority)
			assert.JSONEq(t, string(req.Input), string(wf.Input))
			assert.Equal(t, status.WorkflowPending, wf.Status)
			assert.Equal(t, receipt.EventID, wf.EventID)
			assert.Equal(t, tc.user, wf.UserID)
			assert.Equal(t, h.clock.Now(), wf.CreatedAt.UTC())

			doc, err := h.env.Store.GetEvent(ctx, receipt.EventID)
			require.NoError(t, err)
			assert.False(t, doc.PublishPending, "published and marked")

			published := h.env.Envelopes(t, events.TopicWorkflows)
			require.Len(t, published, 1)
			env := published[0]
			assert.Equal(t, events.WorkflowCreated, env.EventType)
			assert.Equal(t, receipt.EventID, env.EventID)
			assert.Equal(t, receipt.WorkflowID, env.AggregateID())
			assert.True(t, tracing.ValidTraceID(receipt.TraceID), "a caller without a trace gets a new one: %q", receipt.TraceID)
			assert.Equal(t, receipt.TraceID, wf.TraceID)
			assert.Equal(t, events.Metadata{Source: "api-gateway", UserID: tc.wantUser, APIVersion: events.SchemaVersion, TraceID: receipt.TraceID}, *env.Metadata)
			p, err := events.PayloadAs[events.WorkflowCreatedPayload](env)
			require.NoError(t, err)
			assert.Equal(t, req.Steps, p.Steps)
			assert.Equal(t, events.Priority(req.Priority), p.Priority)
			assert.Equal(t, events.At(h.clock.Now()), p.CreatedAt)
		})
	}
}

func TestSubmitTaskStoresThePendingTaskThenPublishesItsCreatedEvent(t *testing.T) {
	tests := []struct {
		name       string
		maxRetries *int
		want       int
	}{
		{"maxRetries absent: the default", nil, submit.DefaultMaxRetries},
		{"maxRetries 0 is kept", intp(0), 0},
		{"maxRetries at the limit", intp(20), 20},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			ctx := context.Background()
			req := validTask()
			req.MaxRetries = tc.maxRetries
			receipt, err := h.svc.SubmitTask(ctx, req, submit.Caller{UserID: "user-3"})
			require.NoError(t, err)
			assert.True(t, strings.HasPrefix(receipt.TaskID, events.TaskIDPrefix), receipt.TaskID)
			assert.Equal(t, status.TaskPending, receipt.Status)

			task, err := h.env.Store.GetTask(ctx, receipt.TaskID)
			require.NoError(t, err)
			assert.Equal(t, req.Type, task.Type)
			assert.JSONEq(t, string(req.Data), string(task.Data))
			assert.Equal(t, tc.want, task.MaxRetries)
			assert.Equal(t, status.TaskPending, task.Status)
			assert.Equal(t, "user-3", task.UserID)

			published := h.env.Envelopes(t, events.TopicTasks)
			require.Len(t, published, 1)
			p, err := events.PayloadAs[events.TaskCreatedPayload](published[0])
			require.NoError(t, err)
			assert.Equal(t, receipt.TaskID, p.TaskID)
			assert.Equal(t, tc.want, p.MaxRetries)
			assert.Equal(t, 0, p.RetryCount)
			assert.Equal(t, receipt.EventID, published[0].EventID)
		})
	}
}

// TestIdempotencyKeyFindsTheFirstSubmission: a retry with the same key,
// request and principal answers with the first receipt and stores and
// publishes nothing new; anything else under the same key is a conflict.
func TestIdempotencyKeyFindsTheFirstSubmission(t *testing.T) {
	first := submit.Caller{UserID: "user-1", IdempotencyKey: "key-1"}
	tests := []struct {
		name      string
		retry     func(*submit.WorkflowRequest) submit.Caller
		wantSame  bool
		wantError error
	}{
		{"same request, same principal", func(*submit.WorkflowRequest) submit.Caller { return first }, true, nil},
		{"another request", func(r *submit.WorkflowRequest) submit.Caller { r.Priority = "low"; return first }, false, submit.ErrIdempotencyConflict},
		{"another principal", func(*submit.WorkflowRequest) submit.Caller {
			return submit.Caller{UserID: "user-2", IdempotencyKey: "key-1"}
		}, false, submit.ErrIdempotencyConflict},
		{"no principal", func(*submit.WorkflowRequest) submit.Caller {
			return submit.Caller{IdempotencyKey: "key-1"}
		}, false, submit.ErrIdempotencyConflict},
		{"another key", func(*submit.WorkflowRequest) submit.Caller {
			return submit.Caller{UserID: "user-1", IdempotencyKey: "key-2"}
		}, false, nil},
		{"no key", func(*submit.WorkflowRequest) submit.Caller { return submit.Caller{UserID: "user-1"} }, false, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			ctx := context.Background()
			req := validWorkflow()
			receipt, err := h.svc.SubmitWorkflow(ctx, req, first)
			require.NoError(t, err)
			assert.Equal(t, events.DeriveID(events.WorkflowIDPrefix, "idempotency", "key-1"), receipt.WorkflowID,
				"the id is derived from the key")

			h.clock.Advance(time.Minute)
			by := tc.retry(&req)
			again, err := h.svc.SubmitWorkflow(ctx, req, by)
			wfs, _, evs, recs := h.stored(t)
			switch {
			case tc.wantError != nil:
				require.ErrorIs(t, err, tc.wantError)
				assert.Equal(t, submit.WorkflowReceipt{}, again)
				assert.Equal(t, [3]int{1, 1, 1}, [3]int{wfs, evs, recs}, "only the first is stored")
			case tc.wantSame:
				require.NoError(t, err)
				assert.Equal(t, receipt, again, "the first submission's receipt")
				assert.Equal(t, [3]int{1, 1, 1}, [3]int{wfs, evs, recs}, "nothing new stored or published")
				wf, err := h.env.Store.GetWorkflow(ctx, receipt.WorkflowID)
				require.NoError(t, err)
				assert.Equal(t, storetest.NewClock().Now(), wf.CreatedAt.UTC(), "created when first submitted")
			default:
				require.NoError(t, err)
				assert.NotEqual(t, receipt.WorkflowID, again.WorkflowID)
				assert.Equal(t, [3]int{2, 2, 2}, [3]int{wfs, evs, recs}, "a second workflow")
			}
		})
	}
}

// TestIdempotencyKeysOfWorkflowsAndTasksDoNotMeet: the same key on a
// workflow and on a task names two submissions.
func TestIdempotencyKeysOfWorkflowsAndTasksDoNotMeet(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	by := submit.Caller{IdempotencyKey: "shared"}
	wf, err := h.svc.SubmitWorkflow(ctx, validWorkflow(), by)
	require.NoError(t, err)
	task, err := h.svc.SubmitTask(ctx, validTask(), by)
	require.NoError(t, err)
	assert.Equal(t, events.DeriveID(events.TaskIDPrefix, "idempotency", "shared"), task.TaskID)
	assert.NotEqual(t, wf.EventID, task.EventID)
	again, err := h.svc.SubmitTask(ctx, validTask(), by)
	require.NoError(t, err)
	assert.Equal(t, task, again)
	wfs, tasks, evs, recs := h.stored(t)
	assert.Equal(t, [4]int{1, 1, 2, 2}, [4]int{wfs, tasks, evs, recs})
}
