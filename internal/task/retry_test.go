package task_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/fault"
	"github.com/streamops/streamops/internal/status"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/stream/streamtest"
	"github.com/streamops/streamops/internal/task"
)

// scriptMailer fails each task's first sends as its script says (-1:
// every send) with err, then delivers; it counts sends per task.
type scriptMailer struct {
	mu       sync.Mutex
	failures map[string]int
	err      error
	calls    map[string]int
}

func newScriptMailer(err error) *scriptMailer {
	return &scriptMailer{failures: map[string]int{}, err: err, calls: map[string]int{}}
}

func (m *scriptMailer) Send(_ context.Context, e task.Email) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.calls[e.ID]++
	if m.failures[e.ID] != 0 {
		m.failures[e.ID]--
		return "", m.err
	}
	return "msg-" + e.ID, nil
}

func (m *scriptMailer) sends(taskID string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.calls[taskID]
}

// emailPayload is an email_notification task.created payload for id.
func emailPayload(id string, maxRetries int) events.TaskCreatedPayload {
	return events.TaskCreatedPayload{TaskID: id, Type: events.TaskEmailNotification,
		Data:       json.RawMessage(`{"recipient":"user@example.com","subject":"Welcome to StreamOps","template":"welcome_email"}`),
		MaxRetries: maxRetries, CreatedAt: events.At(time.Date(2026, 1, 4, 1, 10, 0, 0, time.UTC))}
}

// failingOnce submits, on a new harness, an email task whose first send
// times out, so its first attempt fails with a retry scheduled.
func failingOnce(t *testing.T) (*harness, *scriptMailer, string) {
	t.Helper()
	m := newScriptMailer(smtpTimeout)
	h := newHarness(t, emailOnly(m))
	id := events.NewTaskID()
	m.failures[id] = 1
	h.submit(t, emailPayload(id, 3))
	return h, m, id
}

// assertRetriedOnce asserts that task id completed on its one retry.
func assertRetriedOnce(t *testing.T, h *harness, m *scriptMailer, id string) {
	t.Helper()
	assert.Equal(t, status.TaskCompleted, h.task(t, id).Status)
	assert.Equal(t, 2, m.sends(id), "the retry ran once")
	assert.Equal(t, []string{"task.created", "task.processing(0)", "task.failed(1)", "task.processing(1)", "task.completed"},
		steps(t, h.Lifecycle(t, id)))
}

// step names an event of a task's lifecycle with its retryCount, where it
// has one: "task.failed(2)".
func step(tb testing.TB, e events.Envelope) string {
	tb.Helper()
	var p struct {
		RetryCount *int `json:"retryCount"`
	}
	require.NoError(tb, json.Unmarshal(e.Payload, &p))
	if p.RetryCount == nil || e.EventType == events.TaskCreated {
		return string(e.EventType)
	}
	return fmt.Sprintf("%s(%d)", e.EventType, *p.RetryCount)
}

func steps(tb testing.TB, envs []events.Envelope) []string {
	out := make([]string, len(envs))
	for i, e := range envs {
		out[i] = step(tb, e)
	}
	return out
}

// runToEnd drives a submitted task as the deployed stack would: the
// processor consumes everything on tasks (its task.failed too, before it
// is due), and the retry-sweeper runs once the retry is due, until the
// task ends. It returns how many sweeps redelivered a retry.
func runToEnd(t *testing.T, h *harness, m *scriptMailer, taskID string) int {
	t.Helper()
	sweeps := 0
	for range 10 {
		attempts := m.sends(taskID)
		h.drain(t)
		if tk := h.task(t, taskID); status.TaskIsFinal(tk.Status) {
			return sweeps
		}
		// The task.failed was consumed before its nextRetryAt: acknowledged,
		// not run.
		h.drain(t)
		require.Equal(t, attempts+1, m.sends(taskID), "a retry not yet due does not run")
		tk := h.task(t, taskID)
		require.Equal(t, status.TaskFailed, tk.Status)
		require.NotNil(t, tk.NextRetryAt, "GET /api/tasks/{id} shows when the retry is due")
		require.NotNil(t, tk.LastError)

		h.clock.Advance(2 * time.Hour)
		n, err := h.retrier.RetryDue(context.Background(), h.clock.Now(), 100)
		require.NoError(t, err)
		require.Equal(t, 1, n)
		sweeps++
	}
	t.Fatalf("task %s did not end", taskID)
	return 0
}

func TestTaskRetriesShowSeed003SequenceWithOneTaskCreated(t *testing.T) {
	permanent := fault.Permanent(task.CodeInvalidRecipient, "the mail server refused the recipient")
	tests := []struct {
		name       string
		maxRetries int
		failures   int // -1: every attempt
		err        error
		want       []string
		wantStatus string
	}{
		{"succeeds at once", 3, 0, smtpTimeout,
			[]string{"task.created", "task.processing(0)", "task.completed"}, status.TaskCompleted},
		{"fails once, succeeds on retry 1", 3, 1, smtpTimeout,
			[]string{"task.created", "task.processing(0)", "task.failed(1)", "task.processing(1)", "task.completed"}, status.TaskCompleted},
		{"fails twice, succeeds on retry 2", 3, 2, smtpTimeout,
			[]string{"task.created", "task.processing(0)", "task.failed(1)", "task.processing(1)", "task.failed(2)",
				"task.processing(2)", "task.completed"}, status.TaskCompleted},
		{"fails retryably every time: dead letter after maxRetries retries", 3, -1, smtpTimeout,
			[]string{"task.created", "task.processing(0)", "task.failed(1)", "task.processing(1)", "task.failed(2)",
				"task.processing(2)", "task.failed(3)", "task.processing(3)", "task.dead_letter(3)"}, status.TaskDeadLetter},
		{"maxRetries 0: a retryable failure dead-letters at once", 0, -1, smtpTimeout,
			[]string{"task.created", "task.processing(0)", "task.dead_letter(0)"}, status.TaskDeadLetter},
		{"non-retryable error: straight to dead letter", 3, -1, permanent,
			[]string{"task.created", "task.processing(0)", "task.dead_letter(0)"}, status.TaskDeadLetter},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newScriptMailer(tt.err)
			h := newHarness(t, emailOnly(m))
			id := events.NewTaskID()
			m.failures[id] = tt.failures
			h.submit(t, emailPayload(id, tt.maxRetries))

			sweeps := runToEnd(t, h, m, id)

			assert.Equal(t, tt.want, steps(t, h.Lifecycle(t, id)))
			created := 0
			for _, e := range h.Harness.Lifecycle(t, id) {
				if e.EventType == events.TaskCreated {
					created++
				}
			}
			assert.Equal(t, 1, created, "one task.created record on tasks, ever")
			assert.Equal(t, max(0, len(tt.want)-3)/2, sweeps, "one redelivery per retry")
			tk := h.task(t, id)
			assert.Equal(t, tt.wantStatus, tk.Status)
			assert.Nil(t, tk.NextRetryAt)
			if tt.wantStatus == status.TaskDeadLetter {
				require.NotNil(t, tk.LastError, "GET /api/tasks/{id} shows the last error")
				require.Len(t, h.DeadLetters(t, store.DeadLetterQuery{Topic: events.TopicTasks}), 1)
			}
		})
	}
}

func TestTaskFailedRedeliveredByTheSweeperIsTheSameEvent(t *testing.T) {
	h, _, id := failingOnce(t)
	h.drain(t)

	redelivered := h.sweep(t, 1)
	var failed []events.Envelope
	for _, e := range h.Harness.Lifecycle(t, id) {
		if e.EventType == events.TaskFailed {
			failed = append(failed, e)
		}
	}
	require.Len(t, failed, 2, "emitted once, redelivered once")
	assert.Equal(t, failed[0].EventID, failed[1].EventID, "the same event, not a new announcement")
	assert.Equal(t, failed[0].Timestamp, failed[1].Timestamp)
	assert.Equal(t, failed[0].Metadata, failed[1].Metadata)
	assert.JSONEq(t, string(failed[0].Payload), string(failed[1].Payload))
	assert.Equal(t, events.DeriveID(events.EventIDPrefix, id, "task.failed", "0"), failed[0].EventID)
	assert.Equal(t, "event-processor", failed[0].Metadata.Source)
	stored, err := h.Env.Store.GetEvent(context.Background(), failed[0].EventID)
	require.NoError(t, err)
	assert.False(t, stored.PublishPending)
	redriven := h.task(t, id)
	assert.Equal(t, status.TaskPending, redriven.Status, "its retry is on its way")
	assert.Equal(t, 1, redriven.RetryCount)

	require.NoError(t, h.Deliver(t, redelivered))
	assert.Equal(t, status.TaskCompleted, h.task(t, id).Status)
	n, err := h.retrier.RetryDue(context.Background(), h.clock.Now().Add(24*time.Hour), 100)
	require.NoError(t, err)
	assert.Zero(t, n, "nothing left to redeliver")
}

// TestRetryNotYetDueIsAcknowledgedAndDoesNotHoldBackItsPartition: a
// task.failed delivered before its nextRetryAt does not run its retry and
// the record behind it on the same partition runs in the same batch; one
// delivered when it is due runs at once, without the sweeper.
func TestRetryNotYetDueIsAcknowledgedAndDoesNotHoldBackItsPartition(t *testing.T) {
	tests := []struct {
		name    string
		advance time.Duration // before the batch
		retried bool
	}{
		{"not yet due", 0, false},
		{"due by the batch", 16 * time.Second, true},
		{"long overdue", 24 * time.Hour, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newScriptMailer(smtpTimeout)
			h := newHarness(t, emailOnly(m))
			g := streamtest.NewGen(7)
			slow := events.TaskIDPrefix + g.UUID()
			m.failures[slow] = 1
			h.submit(t, emailPayload(slow, 3))
			h.drain(t) // attempt 0 fails: task.failed(1), due in 15 s

			part := streamtest.PartitionOf(events.TopicTasks, []byte(slow))
			behind := events.TaskIDPrefix + g.IDOnPartition(events.TaskIDPrefix, events.TopicTasks, part)
			h.submit(t, emailPayload(behind, 3))
			h.clock.Advance(tt.advance)
			var batch []string
			for _, r := range h.Env.Records(t, events.TopicTasks) {
				if r.Offset >= h.consumed[r.Partition] {
					e, err := events.Decode(r.Value)
					require.NoError(t, err)
					require.Equal(t, part, r.Partition)
					batch = append(batch, e.AggregateID()+" "+string(e.EventType))
				}
			}
			require.Equal(t, []string{slow + " task.processing", slow + " task.failed", behind + " task.created"}, batch,
				"one partition, the retry first")

			h.drain(t)

			assert.Equal(t, status.TaskCompleted, h.task(t, behind).Status, "the record behind it ran")
			assert.Equal(t, 1, m.sends(behind))
			tk := h.task(t, slow)
			if tt.retried {
				assert.Equal(t, 2, m.sends(slow))
				assert.Equal(t, status.TaskCompleted, tk.Status)
				return
			}
			assert.Equal(t, 1, m.sends(slow), "not run before nextRetryAt")
			assert.Equal(t, status.TaskFailed, tk.Status)
			assert.Equal(t, 1, tk.RetryCount)
			require.NotNil(t, tk.NextRetryAt)
			assert.Equal(t, []string{"task.created", "task.processing(0)", "task.failed(1)"}, steps(t, h.Lifecycle(t, slow)))
		})
	}
}

// TestRetryWhoseMomentPassedWhileTheProcessorWasDownStillRuns: the
// processor is down (nothing consumed) past nextRetryAt; after the
// restart the retry runs once, whether its task.failed was consumed early
// and the sweeper redelivers it, or it waited on the topic.
func TestRetryWhoseMomentPassedWhileTheProcessorWasDownStillRuns(t *testing.T) {
	tests := []struct {
		name         string
		seenEarly    bool // the processor consumed the task.failed before going down
		sweepsBefore int  // sweeps while the processor was down
	}{
		{"consumed early, swept after the restart", true, 0},
		{"consumed early, swept while down", true, 1},
		{"waiting on the topic, swept after the restart", false, 0},
		{"waiting on the topic, swept twice while down", false, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, m, id := failingOnce(t)
			h.drain(t)
			if tt.seenEarly {
				h.drain(t)
			}
			h.clock.Advance(6 * time.Hour) // down
			for range tt.sweepsBefore {
				_, err := h.retrier.RetryDue(context.Background(), h.clock.Now(), 100)
				require.NoError(t, err)
			}

			h.useExecutors(t, emailOnly(m)) // the restart: a new processor
			_, err := h.retrier.RetryDue(context.Background(), h.clock.Now(), 100)
			require.NoError(t, err)
			h.drain(t)

			assertRetriedOnce(t, h, m, id)
		})
	}
}

// TestDuplicateTaskFailedRunsTheRetryOnce: however often the task.failed
// of a retry arrives once it is due, the retry runs once.
func TestDuplicateTaskFailedRunsTheRetryOnce(t *testing.T) {
	tests := []struct {
		name    string
		deliver func(t *testing.T, h *harness)
	}{
		{"twice in one batch", func(t *testing.T, h *harness) {
			b := h.sweep(t, 1)
			for tp, recs := range b.Records {
				b.Records[tp] = append(recs, recs...)
			}
			require.NoError(t, h.Deliver(t, b))
		}},
		{"again in a later batch", func(t *testing.T, h *harness) {
			b := h.sweep(t, 1)
			require.NoError(t, h.Deliver(t, b))
			require.NoError(t, h.Deliver(t, b))
		}},
		{"the original and the sweeper's redelivery", func(t *testing.T, h *harness) {
			h.clock.Advance(time.Hour)
			_, err := h.retrier.RetryDue(context.Background(), h.clock.Now(), 100)
			require.NoError(t, err)
			h.drain(t) // both copies in one batch
			h.drain(t)
		}},
		{"the sweeper runs twice before the processor", func(t *testing.T, h *harness) {
			h.clock.Advance(time.Hour)
			for range 2 {
				_, err := h.retrier.RetryDue(context.Background(), h.clock.Now(), 100)
				require.NoError(t, err)
			}
			h.drain(t)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, m, id := failingOnce(t)
			require.Equal(t, 1, h.drain(t))

			tt.deliver(t, h)

			assertRetriedOnce(t, h, m, id)
		})
	}
}

// TestRetryWhoseTaskFailedIsNoLongerStoredIsRebuiltAndRun: the sweeper
// rebuilds the task.failed from the task's state, with the id the
// processor would have given it.
func TestRetryWhoseTaskFailedIsNoLongerStoredIsRebuiltAndRun(t *testing.T) {
	m := newScriptMailer(smtpTimeout)
	h := newHarness(t, emailOnly(m))
	id := events.NewTaskID()
	p := emailPayload(id, 3)
	const trace = "4bf92f3577b34da6a3ce929d0e0e4736"
	_, err := h.Env.Store.CreateTask(context.Background(), store.Task{TaskID: id, Type: string(p.Type), Data: store.JSONDoc(p.Data),
		MaxRetries: 3, EventID: "evt-submitted", CreatedAt: p.CreatedAt.Time, TraceID: trace})
	require.NoError(t, err)
	next := h.clock.Now().Add(time.Minute)
	failed := store.TaskOutcome{Task: store.Task{TaskID: id, Status: status.TaskFailed, RetryCount: 1, NextRetryAt: &next,
		LastError: &events.TaskError{Code: "SMTP_ERROR", Message: "timeout", Retryable: true}}, Attempt: 0}
	n, err := h.Env.Store.SaveTaskOutcomes(context.Background(), failed)
	require.NoError(t, err)
	require.Equal(t, 1, n)

	b := h.sweep(t, 1)
	require.NoError(t, h.Deliver(t, b))

	got := h.Lifecycle(t, id)
	require.Equal(t, []string{"task.failed(1)", "task.processing(1)", "task.completed"}, steps(t, got))
	assert.Equal(t, events.DeriveID(events.EventIDPrefix, id, "task.failed", "0"), got[0].EventID)
	assert.Equal(t, task.RetrySource, got[0].Metadata.Source)
	for _, e := range got {
		assert.Equal(t, trace, e.Metadata.TraceID, "%s stays in the task's trace", e.EventType)
	}
	_, err = h.Env.Store.GetEvent(context.Background(), got[0].EventID)
	assert.NoError(t, err, "stored like every event")
	assert.Equal(t, 1, m.sends(id))
}

// TestTaskFailedOfATaskWithNoProjectionRunsNothing: a task.failed cannot
// rebuild the task it retries (it lacks the submission), so it is
// acknowledged and nothing is written.
func TestTaskFailedOfATaskWithNoProjectionRunsNothing(t *testing.T) {
	m := newScriptMailer(smtpTimeout)
	h := newHarness(t, emailOnly(m))
	g := streamtest.NewGen(9)
	id := events.TaskIDPrefix + g.UUID()
	failed := g.Record(t, g.Envelope(t, events.TaskFailedPayload{TaskID: id, FailedAt: g.Now(), RetryCount: 1, MaxRetries: 3,
		Error: events.TaskError{Code: "SMTP_ERROR", Message: "timeout", Retryable: true}, NextRetryAt: g.Now()}, nil))

	require.NoError(t, h.Deliver(t, streamtest.Batch(failed)))

	assert.Zero(t, m.sends(id))
	assert.Empty(t, h.Env.Records(t, events.TopicTasks))
	assert.Empty(t, h.Documents(t, store.CollTasks))
	assert.Empty(t, h.DeadLetters(t, store.DeadLetterQuery{Topic: events.TopicTasks}))
}
