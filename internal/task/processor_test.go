package task_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	lambdaevents "github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/fault"
	"github.com/streamops/streamops/internal/status"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/stream"
	"github.com/streamops/streamops/internal/stream/streamtest"
	"github.com/streamops/streamops/internal/task"
	"github.com/streamops/streamops/internal/vault"
)

// flakyMailer fails its first `failures` sends with err, then delivers.
type flakyMailer struct {
	mu       sync.Mutex
	failures int
	err      error
	sent     []task.Email
	calls    int
}

func (m *flakyMailer) Send(_ context.Context, e task.Email) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.calls++
	if m.failures != 0 {
		m.failures--
		return "", m.err
	}
	m.sent = append(m.sent, e)
	return "msg-" + e.ID, nil
}

var smtpTimeout = fault.Retryable("SMTP_ERROR", errors.New("connection timeout to mail server"))

func emailOnly(m task.Mailer) task.Executors {
	return task.Executors{events.TaskEmailNotification: task.EmailExecutor{Mailer: m}}
}

// emailTask is a harness mailing through m, the tasks-email.json batch and
// its task, submitted.
func emailTask(t *testing.T, m task.Mailer) (*harness, lambdaevents.KafkaEvent, events.TaskCreatedPayload) {
	t.Helper()
	h := newHarness(t, emailOnly(m))
	ev := streamtest.Load(t, "tasks-email.json")
	return h, ev, h.submitted(t, ev)[0]
}

func TestTaskFailingTwiceThenSucceedingShowsRetryCountsZeroOneTwoAndOneCompleted(t *testing.T) {
	mailer := &flakyMailer{failures: 2, err: smtpTimeout}
	h, ev, tc := emailTask(t, mailer)

	require.NoError(t, h.Deliver(t, ev))
	failed := h.task(t, tc.TaskID)
	assert.Equal(t, status.TaskFailed, failed.Status)
	assert.Equal(t, 1, failed.RetryCount)
	require.NotNil(t, failed.NextRetryAt)
	require.NoError(t, h.Deliver(t, h.sweep(t, 1)))
	require.NoError(t, h.Deliver(t, h.sweep(t, 2)))

	got := h.Lifecycle(t, tc.TaskID)
	var attempts []int
	for _, e := range ofType(got, events.TaskProcessing) {
		attempts = append(attempts, streamtest.Payload[events.TaskProcessingPayload](t, e).RetryCount)
	}
	assert.Equal(t, []int{0, 1, 2}, attempts)
	var retries []int
	for _, e := range ofType(got, events.TaskFailed) {
		p := streamtest.Payload[events.TaskFailedPayload](t, e)
		retries = append(retries, p.RetryCount)
		assert.Equal(t, "SMTP_ERROR", p.Error.Code)
		assert.True(t, p.Error.Retryable)
		assert.Equal(t, 3, p.MaxRetries)
	}
	assert.Equal(t, []int{1, 2}, retries)
	require.Len(t, ofType(got, events.TaskCompleted), 1)
	done := streamtest.Payload[events.TaskCompletedPayload](t, ofType(got, events.TaskCompleted)[0])
	assert.JSONEq(t, `{"emailSent":true,"messageId":"msg-`+tc.TaskID+`"}`, string(done.Result))
	assert.Empty(t, ofType(got, events.TaskDeadLetter))
	assert.Len(t, mailer.sent, 1)

	final := h.task(t, tc.TaskID)
	assert.Equal(t, status.TaskCompleted, final.Status)
	assert.Equal(t, 2, final.RetryCount)
	assert.Nil(t, final.NextRetryAt)
}

func TestFailedAttemptSchedulesItsRetryWithExponentialBackoff(t *testing.T) {
	mailer := &flakyMailer{failures: -1, err: smtpTimeout}
	h, ev, tc := emailTask(t, mailer)

	require.NoError(t, h.Deliver(t, ev))
	require.NoError(t, h.Deliver(t, h.sweep(t, 1)))

	var delays []time.Duration
	for _, e := range ofType(h.Lifecycle(t, tc.TaskID), events.TaskFailed) {
		p := streamtest.Payload[events.TaskFailedPayload](t, e)
		delays = append(delays, p.NextRetryAt.Sub(p.FailedAt.Time))
	}
	// Full jitter drawing the middle of [0, 30 s·2^(n-1)].
	assert.Equal(t, []time.Duration{15 * time.Second, 30 * time.Second}, delays)
	stored := h.task(t, tc.TaskID)
	require.NotNil(t, stored.NextRetryAt)
	assert.Equal(t, "SMTP_ERROR", stored.LastError.Code)
}

func TestTaskFailingPastMaxRetriesEndsInOneDeadLetter(t *testing.T) {
	mailer := &flakyMailer{failures: -1, err: smtpTimeout}
	h, ev, tc := emailTask(t, mailer)

	require.NoError(t, h.Deliver(t, ev))
	var last = ev
	for retry := 1; retry <= tc.MaxRetries; retry++ {
		last = h.sweep(t, retry)
		require.NoError(t, h.Deliver(t, last))
	}
	require.NoError(t, h.Deliver(t, last), "a redelivery of the last attempt changes nothing")

	got := h.Lifecycle(t, tc.TaskID)
	assert.Len(t, ofType(got, events.TaskProcessing), 4, "the first attempt and three retries")
	assert.Len(t, ofType(got, events.TaskFailed), 3)
	dead := ofType(got, events.TaskDeadLetter)
	require.Len(t, dead, 1)
	p := streamtest.Payload[events.TaskDeadLetterPayload](t, dead[0])
	assert.Equal(t, 3, p.RetryCount)
	assert.Equal(t, 3, p.MaxRetries)
	assert.Equal(t, "SMTP_ERROR", p.FinalError.Code)
	assert.Equal(t, events.TaskCreated, p.OriginalEvent.EventType)
	assert.Zero(t, streamtest.Payload[events.TaskCreatedPayload](t, events.Envelope{EventType: events.TaskCreated, Payload: p.OriginalEvent.Payload}).RetryCount,
		"the submission, though the last attempt was driven by a task.failed")
	assert.JSONEq(t, `{"recipient":"user@example.com","subject":"Welcome to StreamOps","template":"welcome_email"}`,
		string(streamtest.Payload[events.TaskCreatedPayload](t, events.Envelope{EventType: events.TaskCreated, Payload: p.OriginalEvent.Payload}).Data))
	assert.Equal(t, 4, mailer.calls)

	assert.Equal(t, status.TaskDeadLetter, h.task(t, tc.TaskID).Status)
	dlq := h.Env.Records(t, events.DLQTopic(events.TopicTasks))
	require.Len(t, dlq, 1)
	dl, ok := stream.ParseDeadLetter(dlq[0])
	require.True(t, ok)
	assert.Equal(t, stream.ReasonRetriesExhausted, dl.Reason)
	stored := h.DeadLetters(t, store.DeadLetterQuery{Topic: events.TopicTasks})
	require.Len(t, stored, 1)
	assert.Equal(t, tc.TaskID, stored[0].AggregateID)
	assert.Equal(t, "task-processor", stored[0].Processor)
}

func TestNonRetryableErrorDeadLettersTheTaskAtOnce(t *testing.T) {
	h := newHarness(t, emailOnly(&flakyMailer{}))
	g := streamtest.NewGen(41)
	ev := streamtest.Batch(g.Record(t, g.Envelope(t, events.TaskCreatedPayload{
		TaskID: events.TaskIDPrefix + g.UUID(), Type: events.TaskEmailNotification,
		Data: []byte(`{"recipient":"not an address","template":"welcome_email"}`), MaxRetries: 3, CreatedAt: g.Now(),
	}, streamtest.APIMetadata)))
	tc := h.submitted(t, ev)[0]

	require.NoError(t, h.Deliver(t, ev))

	got := h.Lifecycle(t, tc.TaskID)
	require.Equal(t, []events.Type{events.TaskProcessing, events.TaskDeadLetter}, []events.Type{got[0].EventType, got[1].EventType})
	p := streamtest.Payload[events.TaskDeadLetterPayload](t, got[1])
	assert.Equal(t, 0, p.RetryCount)
	assert.Equal(t, task.CodeInvalidRecipient, p.FinalError.Code)
	assert.NotContains(t, p.FinalError.Message, "not an address", "errors never quote personal data")
	dl, ok := stream.ParseDeadLetter(h.Env.Records(t, events.DLQTopic(events.TopicTasks))[0])
	require.True(t, ok)
	assert.Equal(t, stream.ReasonProcessingFailed, dl.Reason)
}

func TestTasksOfEveryTypeCompleteOnTheLocalBackends(t *testing.T) {
	dir := t.TempDir()
	h := newHarness(t, nil)
	vlt, err := vault.NewInMemory(h.Env.Store)
	require.NoError(t, err)
	executors, err := task.NewExecutors(task.LocalBackends(task.BackendConfig{DataDir: dir, Resolver: vlt}), h.Env.Store)
	require.NoError(t, err)
	h.useExecutors(t, executors)
	ev := streamtest.Load(t, "tasks-batch.json")
	tcs := h.submitted(t, ev)
	_, err = h.Env.Store.CreateWorkflow(context.Background(), store.Workflow{WorkflowID: "wf-export-me", Name: "Nightly Import",
		Steps: []string{"validate"}, Priority: "low", IdempotencyKey: "client-secret"})
	require.NoError(t, err)

	require.NoError(t, h.Deliver(t, ev))

	results := map[events.TaskType]string{}
	for _, tc := range tcs {
		got := h.Lifecycle(t, tc.TaskID)
		require.Len(t, got, 2, "%s: processing, completed", tc.Type)
		require.Equal(t, events.TaskCompleted, got[1].EventType, tc.Type)
		results[tc.Type] = string(streamtest.Payload[events.TaskCompletedPayload](t, got[1]).Result)
	}
	assert.Contains(t, results[events.TaskEmailNotification], `"emailSent":true`)
	assert.Contains(t, results[events.TaskDataExport], `"format":"csv"`)
	assert.Contains(t, results[events.TaskReportGeneration], `"reportGenerated":true`)

	mail, err := filepath.Glob(filepath.Join(dir, "mail", "*.eml"))
	require.NoError(t, err)
	require.Len(t, mail, 1)
	eml, err := os.ReadFile(mail[0])
	require.NoError(t, err)
	assert.Contains(t, string(eml), "To: <user@example.com>")
	assert.Contains(t, string(eml), "Subject: Welcome to StreamOps")
	export, err := os.ReadFile(filepath.Join(dir, "objects", "streamops-exports", "2026-01-04", "workflows.csv"))
	require.NoError(t, err, "the export lands where its destination says, under the data dir")
	assert.Contains(t, string(export), "_id,createdAt,currentStepIndex,eventId,name,priority,status,steps,updatedAt,workflowId\n")
	assert.Contains(t, string(export), "wf-export-me,")
	assert.NotContains(t, string(export), "client-secret")
	reports, err := filepath.Glob(filepath.Join(dir, "objects", "local", "reports", "monthly_summary", "2025-12", "*.json"))
	require.NoError(t, err)
	assert.Len(t, reports, 1)
}

func TestSameTaskBatchDeliveredTwiceRunsEachAttemptOnce(t *testing.T) {
	mailer := &flakyMailer{}
	h, ev, tc := emailTask(t, mailer)

	require.NoError(t, h.Deliver(t, ev))
	require.NoError(t, h.Deliver(t, ev))

	assert.Equal(t, 1, mailer.calls)
	assert.Len(t, h.Lifecycle(t, tc.TaskID), 2)
}

func TestTaskWithoutProjectionIsCreatedFromItsEvent(t *testing.T) {
	h := newHarness(t, emailOnly(&flakyMailer{}))
	ev := streamtest.Load(t, "tasks-email.json")

	require.NoError(t, h.Deliver(t, ev))

	docs := h.Documents(t, store.CollTasks)
	require.Len(t, docs, 1)
	assert.Contains(t, string(docs[0]), `"status":"completed"`)
	assert.Contains(t, string(docs[0]), `"type":"email_notification"`)
}

func TestTaskProcessorIgnoresLifecycleEventsAndDeadLettersMisroutedOnes(t *testing.T) {
	mailer := &flakyMailer{}
	h := newHarness(t, emailOnly(mailer))
	g := streamtest.NewGen(42)
	id := events.TaskIDPrefix + g.UUID()
	lifecycle := g.Record(t, g.Envelope(t, events.TaskProcessingPayload{TaskID: id, StartedAt: g.Now()}, nil))
	misrouted := g.Record(t, g.Envelope(t, events.WorkflowProcessingPayload{WorkflowID: events.WorkflowIDPrefix + g.UUID(),
		StartedAt: g.Now(), CurrentStep: "validate"}, nil))
	misrouted.Topic = events.TopicTasks

	require.NoError(t, h.Deliver(t, streamtest.Batch(lifecycle, misrouted)))

	assert.Zero(t, mailer.calls)
	assert.Empty(t, h.Env.Records(t, events.TopicTasks), "nothing is emitted for a lifecycle event")
	dlq := h.Env.Records(t, events.DLQTopic(events.TopicTasks))
	require.Len(t, dlq, 1)
	dl, _ := stream.ParseDeadLetter(dlq[0])
	assert.Contains(t, dl.Error, "does not belong on topic tasks")
}

func TestUnreachableStoreFailsTheTaskBatch(t *testing.T) {
	h := newHarness(t, emailOnly(&flakyMailer{}))
	ev := streamtest.Load(t, "tasks-email.json")
	require.NoError(t, h.Env.Store.Close(context.Background()))

	assert.Error(t, h.Deliver(t, ev))
}
