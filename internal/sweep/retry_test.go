package sweep_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/backoff"
	"github.com/streamops/streamops/internal/fault"
	"github.com/streamops/streamops/internal/status"
	"github.com/streamops/streamops/internal/stream"
	"github.com/streamops/streamops/internal/stream/streamtest"
	"github.com/streamops/streamops/internal/sweep"
	"github.com/streamops/streamops/internal/task"
	"github.com/streamops/streamops/internal/tracing"
)

// failOnce fails each task's first send with a retryable error.
type failOnce struct {
	mu    sync.Mutex
	calls map[string]int
}

func (m *failOnce) Send(_ context.Context, e task.Email) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.calls[e.ID]++
	if m.calls[e.ID] == 1 {
		return "", fault.Retryable("SMTP_ERROR", errors.New("connection timeout to mail server"))
	}
	return "msg-" + e.ID, nil
}

// taskProcessor is the task-processor as its Lambda wires it, on the
// harness's broker, store and clock, consuming tasks from where it
// stopped.
type taskProcessor struct {
	proc     *stream.Processor
	consumed map[int32]int64
}

func newTaskProcessor(t *testing.T, h *harness, m task.Mailer) *taskProcessor {
	t.Helper()
	svc, err := task.New(task.Config{Store: h.Store, Executors: task.Executors{events.TaskEmailNotification: task.EmailExecutor{Mailer: m}},
		Backoff: backoff.Schedule{15 * time.Second}, Runtime: stream.Runtime{Emitter: h.Emitter, Clock: h.clock.Now, Logger: h.Logger}})
	require.NoError(t, err)
	proc, err := stream.New(stream.Config{Name: "task-processor", Handler: svc, DeadLetters: h.Store, Publisher: h.Bus, Logger: h.Logger})
	require.NoError(t, err)
	return &taskProcessor{proc: proc, consumed: map[int32]int64{}}
}

// consume delivers every record of tasks produced since the last call in
// one batch, as the event source mapping would, and returns them.
func (p *taskProcessor) consume(t *testing.T, h *harness) []events.Envelope {
	t.Helper()
	var fresh []*kgo.Record
	var envs []events.Envelope
	for _, r := range h.Records(t, events.TopicTasks) {
		if r.Offset >= p.consumed[r.Partition] {
			p.consumed[r.Partition] = r.Offset + 1
			fresh = append(fresh, r)
			env, err := events.Decode(r.Value)
			require.NoError(t, err)
			envs = append(envs, env)
		}
	}
	if len(fresh) > 0 {
		require.NoError(t, p.proc.HandleKafkaEvent(t.Context(), streamtest.Batch(fresh...)))
	}
	return envs
}

// failedTask submits an email task as the API does and lets the processor
// run its attempt 0, which fails: the task is failed at retryCount 1, its
// task.failed on tasks. It returns the task id and that event.
func failedTask(t *testing.T, h *harness, p *taskProcessor) (string, events.Envelope) {
	t.Helper()
	id, _ := createdTask(t, h)
	p.consume(t, h)
	h.clock.Advance(time.Millisecond)
	var failed []events.Envelope
	for _, e := range p.consume(t, h) { // the processor sees its task.failed before it is due
		if e.EventType == events.TaskFailed {
			failed = append(failed, e)
		}
	}
	require.Len(t, failed, 1)
	tk, err := h.Store.GetTask(context.Background(), id)
	require.NoError(t, err)
	require.Equal(t, status.TaskFailed, tk.Status)
	return id, failed[0]
}

// TestSweeperRedeliversDueTaskRetriesToTheTaskProcessor: the sweeper's
// task pass publishes a failed task's stored task.failed again once its
// nextRetryAt has come (not before, and once), and the real processor runs
// the retry from it; a redelivery that gets lost is driven again as
// stalled work with that same task.failed.
func TestSweeperRedeliversDueTaskRetriesToTheTaskProcessor(t *testing.T) {
	tests := []struct {
		name string
		// after runs the sweeper (and perhaps the processor) once the
		// task failed; it returns the sweeper runs' stats, in order.
		after     func(t *testing.T, h *harness, p *taskProcessor) []sweep.Stats
		want      []sweep.Stats
		redeliver int // copies of the task.failed the sweeper published
	}{
		{name: "not yet due: left alone",
			after: func(t *testing.T, h *harness, _ *taskProcessor) []sweep.Stats {
				return []sweep.Stats{h.run(t)}
			},
			want: []sweep.Stats{{}}},
		{name: "due: redelivered once",
			after: func(t *testing.T, h *harness, _ *taskProcessor) []sweep.Stats {
				h.clock.Advance(time.Hour)
				return []sweep.Stats{h.run(t), h.run(t)}
			},
			want: []sweep.Stats{{TasksRetried: 1}, {}}, redeliver: 1},
		{name: "due while the processor was down for days: redelivered once",
			after: func(t *testing.T, h *harness, _ *taskProcessor) []sweep.Stats {
				h.clock.Advance(72 * time.Hour)
				return []sweep.Stats{h.run(t)}
			},
			want: []sweep.Stats{{TasksRetried: 1}}, redeliver: 1},
		{name: "redelivery lost: driven again after a stall period",
			after: func(t *testing.T, h *harness, p *taskProcessor) []sweep.Stats {
				h.clock.Advance(time.Hour)
				first := h.run(t)
				p.consumed = nil // the processor never sees what was published so far
				h.clock.Advance(sweep.DefaultStallAfter + time.Minute)
				return []sweep.Stats{first, h.run(t)}
			},
			want: []sweep.Stats{{TasksRetried: 1}, {TasksRedriven: 1}}, redeliver: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			m := &failOnce{calls: map[string]int{}}
			p := newTaskProcessor(t, h, m)
			id, failed := failedTask(t, h, p)
			before := len(h.Records(t, events.TopicTasks))

			got := tt.after(t, h, p)

			assert.Equal(t, tt.want, got)
			var published []events.Envelope
			for _, r := range h.Records(t, events.TopicTasks)[before:] {
				env, err := events.Decode(r.Value)
				require.NoError(t, err)
				published = append(published, env)
			}
			require.Len(t, published, tt.redeliver, "only the task.failed, published again")
			for _, e := range published {
				assert.Equal(t, failed.EventID, e.EventID, "the stored task.failed, not a new event")
			}
			if p.consumed == nil {
				p.consumed = map[int32]int64{}
				for _, r := range h.Records(t, events.TopicTasks)[:before+tt.redeliver-1] {
					p.consumed[r.Partition] = r.Offset + 1
				}
			}

			p.consume(t, h)

			tk, err := h.Store.GetTask(context.Background(), id)
			require.NoError(t, err)
			if tt.redeliver == 0 {
				assert.Equal(t, status.TaskFailed, tk.Status)
				assert.Equal(t, 1, m.calls[id], "not run before its nextRetryAt")
				return
			}
			assert.Equal(t, status.TaskCompleted, tk.Status)
			assert.Equal(t, 1, tk.RetryCount)
			assert.Equal(t, 2, m.calls[id], "the retry ran once")
			created := 0
			for _, r := range h.Records(t, events.TopicTasks) {
				if env, err := events.Decode(r.Value); err == nil && env.EventType == events.TaskCreated && env.AggregateID() == id {
					created++
				}
			}
			assert.Equal(t, 1, created, "one task.created, ever")
			trace := traceOf(t, h, id)
			require.True(t, tracing.ValidTraceID(trace))
			for _, r := range h.Records(t, events.TopicTasks) {
				if env, err := events.Decode(r.Value); err == nil && env.AggregateID() == id {
					assert.Equal(t, trace, env.Metadata.TraceID, "%s stays in the task's trace", env.EventType)
				}
			}
		})
	}
}
