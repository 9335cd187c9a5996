package task_test

import (
	"context"
	"testing"
	"time"

	lambdaevents "github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/backoff"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/store/storetest"
	"github.com/streamops/streamops/internal/stream"
	"github.com/streamops/streamops/internal/stream/streamtest"
	"github.com/streamops/streamops/internal/task"
)

// harness is the task-processor as its Lambda wires it, on kfake and the
// store of the engine under test, with the retry-sweeper's Retrier beside
// it.
type harness struct {
	*streamtest.Harness
	retrier *task.Retrier
	clock   *storetest.Clock
	// consumed is, per partition of tasks, the next offset drain delivers.
	consumed map[int32]int64
}

// backoffHalf is the production schedule with the jitter drawing the
// middle of its range, so nextRetryAt is predictable.
func backoffHalf() backoff.Policy {
	b := task.DefaultBackoff.(backoff.Exponential)
	b.Rand = func() float64 { return 0.5 }
	return b
}

func newHarness(tb testing.TB, executors task.Executors) *harness {
	tb.Helper()
	if executors == nil {
		executors = task.Executors{events.TaskEmailNotification: task.EmailExecutor{Mailer: task.FileMailer{Dir: tb.TempDir()}}}
	}
	h := &harness{Harness: streamtest.NewHarness(tb, "task-processor", events.TopicTasks, 30*time.Second),
		clock: storetest.NewTickingClock(5 * time.Millisecond), consumed: map[int32]int64{}}
	h.useExecutors(tb, executors)
	retrier, err := task.NewRetrier(h.Env.Store, h.Env.Bus, h.Env.Emitter, h.Env.Logger)
	require.NoError(tb, err)
	h.retrier = retrier
	return h
}

// useExecutors rebuilds the harness's service with other executors.
func (h *harness) useExecutors(tb testing.TB, executors task.Executors) {
	tb.Helper()
	svc, err := task.New(task.Config{Store: h.Env.Store, Executors: executors, Backoff: backoffHalf(), Runtime: h.Runtime(h.clock.Now)})
	require.NoError(tb, err)
	h.Use(tb, svc)
}

// submitted stores the projection of every task.created in the batch, as
// the API did before publishing it.
func (h *harness) submitted(tb testing.TB, ev lambdaevents.KafkaEvent) []events.TaskCreatedPayload {
	tb.Helper()
	var out []events.TaskCreatedPayload
	for _, p := range stream.DecodeKafkaEvent(ev, stream.WithValidator(events.Validate)) {
		for _, m := range p.Messages {
			require.NoError(tb, m.Err)
			tc, err := events.PayloadAs[events.TaskCreatedPayload](m.Envelope)
			require.NoError(tb, err)
			_, err = h.Env.Store.CreateTask(context.Background(), store.Task{TaskID: tc.TaskID, Type: string(tc.Type),
				Data: store.JSONDoc(tc.Data), MaxRetries: tc.MaxRetries, EventID: m.Envelope.EventID, CreatedAt: tc.CreatedAt.Time})
			require.NoError(tb, err)
			out = append(out, tc)
		}
	}
	return out
}

// sweep runs the retry-sweeper's task pass once the retries are due, and
// returns the batch Lambda would then deliver: the redelivered task.failed
// of retry retryCount, read back from the broker.
func (h *harness) sweep(tb testing.TB, retryCount int) lambdaevents.KafkaEvent {
	tb.Helper()
	h.clock.Advance(2 * time.Hour)
	n, err := h.retrier.RetryDue(context.Background(), h.clock.Now(), 100)
	require.NoError(tb, err)
	require.Equal(tb, 1, n, "one retry is due")
	var redelivered *kgo.Record
	for _, r := range h.Env.Records(tb, events.TopicTasks) {
		e, err := events.Decode(r.Value)
		require.NoError(tb, err)
		if e.EventType == events.TaskCreated {
			require.Zero(tb, streamtest.Payload[events.TaskCreatedPayload](tb, e).RetryCount, "a retry is never a task.created")
		}
		if e.EventType == events.TaskFailed && streamtest.Payload[events.TaskFailedPayload](tb, e).RetryCount == retryCount {
			redelivered = r // the last one: the redelivery
		}
	}
	require.NotNil(tb, redelivered)
	return streamtest.Batch(redelivered)
}

// submit stores the task and its task.created (published), as the API
// does.
func (h *harness) submit(tb testing.TB, p events.TaskCreatedPayload) events.Envelope {
	tb.Helper()
	env, err := events.NewEvent(p, streamtest.APIMetadata)
	require.NoError(tb, err)
	_, err = h.Env.Store.CreateTask(context.Background(), store.Task{TaskID: p.TaskID, Type: string(p.Type),
		Data: store.JSONDoc(p.Data), MaxRetries: p.MaxRetries, EventID: env.EventID, CreatedAt: p.CreatedAt.Time})
	require.NoError(tb, err)
	_, err = h.Env.Emitter.Emit(context.Background(), env)
	require.NoError(tb, err)
	return env
}

// drain delivers, as Lambda's event source mapping would, every record
// of tasks produced since the last drain, in one batch, and returns how
// many it delivered.
func (h *harness) drain(tb testing.TB) int {
	tb.Helper()
	var fresh []*kgo.Record
	for _, r := range h.Env.Records(tb, events.TopicTasks) {
		if r.Offset >= h.consumed[r.Partition] {
			fresh = append(fresh, r)
			h.consumed[r.Partition] = r.Offset + 1
		}
	}
	if len(fresh) > 0 {
		require.NoError(tb, h.Deliver(tb, streamtest.Batch(fresh...)))
	}
	return len(fresh)
}

// Lifecycle is the events of one task on tasks, in order, each once: what
// a consumer that drops a repeated eventId sees (a redelivered task.failed
// is one event).
func (h *harness) Lifecycle(tb testing.TB, taskID string) []events.Envelope {
	tb.Helper()
	var out []events.Envelope
	seen := map[string]bool{}
	for _, e := range h.Harness.Lifecycle(tb, taskID) {
		if !seen[e.EventID] {
			seen[e.EventID] = true
			out = append(out, e)
		}
	}
	return out
}

func (h *harness) task(tb testing.TB, id string) store.Task {
	tb.Helper()
	t, err := h.Env.Store.GetTask(context.Background(), id)
	require.NoError(tb, err)
	return t
}

func ofType(envs []events.Envelope, t events.Type) []events.Envelope {
	var out []events.Envelope
	for _, e := range envs {
		if e.EventType == t {
			out = append(out, e)
		}
	}
	return out
}
