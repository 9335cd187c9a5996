package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/status"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/testenv"
)

// receipt is the answer of POST /webhooks/{provider}.
type receipt struct {
	Status         string `json:"status"`
	WebhookEventID string `json:"webhookEventId"`
}

// workflowSequence is seed 003's lifecycle of a three-step workflow started
// by a webhook, in causal order.
var workflowSequence = []events.Type{
	events.WebhookReceived, events.WorkflowCreated, events.WorkflowProcessing,
	events.WorkflowStepCompleted, events.WorkflowStepCompleted, events.WorkflowStepCompleted,
	events.WorkflowCompleted,
}

// TestLocalStackEndToEnd runs the first four scenarios of the local-stack
// issue against one stack, in order.
func TestLocalStackEndToEnd(t *testing.T) {
	s := start(t, "", nil)
	var hook receipt

	t.Run("StripeWebhookRunsItsThreeStepWorkflowToCompletion", func(t *testing.T) {
		s.t = t
		body := testenv.Testdata(t, "webhooks/stripe-invoice-finalized.json")
		require.Equal(t, http.StatusAccepted, s.call("POST", "/webhooks/stripe", body, s.signedStripe(body), &hook))
		require.Equal(t, "accepted", hook.Status)

		q := url.Values{"execution_id": {hook.WebhookEventID}}
		var evs []events.Envelope
		s.eventually(20*time.Second, func() bool {
			evs = s.events(q)
			return typesOf(evs)[events.WorkflowCompleted] == 1
		}, "the workflow of webhook %s did not complete: %v", hook.WebhookEventID, typesOf(evs))
		assertSeed003Sequence(t, evs)

		created, _ := events.PayloadAs[events.WorkflowCreatedPayload](evs[slices.IndexFunc(evs, isType(events.WorkflowCreated))])
		assert.Equal(t, "Invoice Sync", created.Name)
		var wf struct {
			Status   string `json:"status"`
			Progress []struct {
				Name, Status string
			} `json:"progress"`
		}
		// The events are written before the workflow's checkpoint, so the
		// state may lag them by a moment.
		s.eventually(10*time.Second, func() bool {
			require.Equal(t, http.StatusOK, s.call("GET", "/api/workflows/"+created.WorkflowID, nil, nil, &wf))
			return wf.Status == status.WorkflowCompleted
		}, "workflow %s is %q", created.WorkflowID, wf.Status)
		require.Len(t, wf.Progress, 3)
		for i, step := range []string{"validate", "transform", "store"} {
			assert.Equal(t, step, wf.Progress[i].Name)
			assert.Equal(t, "completed", wf.Progress[i].Status)
		}
		s.eventually(10*time.Second, func() bool {
			return webhookStatus(s, hook.WebhookEventID) == status.WebhookCompleted
		}, "webhook event %s is %q, not completed", hook.WebhookEventID, webhookStatus(s, hook.WebhookEventID))
	})

	t.Run("SameWebhookAgainIsADuplicateAndChangesNothing", func(t *testing.T) {
		s.t = t
		require.NotEmpty(t, hook.WebhookEventID, "needs the first scenario")
		before := snapshot(s, hook.WebhookEventID)
		body := testenv.Testdata(t, "webhooks/stripe-invoice-finalized.json")
		var again receipt
		require.Equal(t, http.StatusOK, s.call("POST", "/webhooks/stripe", body, s.signedStripe(body), &again))
		assert.Equal(t, receipt{Status: "duplicate", WebhookEventID: hook.WebhookEventID}, again)
		time.Sleep(5 * interval) // let anything it might have started show
		assert.Equal(t, before, snapshot(s, hook.WebhookEventID))
	})

	t.Run("TaskFailingTwiceIsRetriedToCompletion", func(t *testing.T) {
		s.t = t
		var sub struct {
			TaskID string `json:"taskId"`
		}
		require.Equal(t, http.StatusCreated, s.call("POST", "/api/tasks",
			[]byte(`{"type":"report_generation","data":{"failTimes":2},"maxRetries":3}`), nil, &sub))
		var task store.Task
		s.eventually(20*time.Second, func() bool {
			s.call("GET", "/api/tasks/"+sub.TaskID, nil, nil, &task)
			return task.Status == status.TaskCompleted
		}, "task %s is %s (retryCount %d)", sub.TaskID, task.Status, task.RetryCount)
		assert.Equal(t, 2, task.RetryCount)
		assert.Equal(t, 3, s.flaky.count(sub.TaskID), "two failed attempts and the one that succeeded")

		evs := s.events(url.Values{"aggregate_id": {sub.TaskID}})
		assert.Equal(t, map[events.Type]int{events.TaskCreated: 1, events.TaskProcessing: 3, events.TaskFailed: 2, events.TaskCompleted: 1}, typesOf(evs),
			"one task.created: retries are driven by task.failed")
		var failed []events.TaskFailedPayload
		var attempts []int
		for _, e := range evs {
			switch e.EventType {
			case events.TaskFailed:
				p, err := events.PayloadAs[events.TaskFailedPayload](e)
				require.NoError(t, err)
				failed = append(failed, p)
			case events.TaskProcessing:
				p, err := events.PayloadAs[events.TaskProcessingPayload](e)
				require.NoError(t, err)
				attempts = append(attempts, p.RetryCount)
			case events.TaskCreated:
				p, err := events.PayloadAs[events.TaskCreatedPayload](e)
				require.NoError(t, err)
				assert.Zero(t, p.RetryCount)
			}
		}
		slices.Sort(attempts)
		assert.Equal(t, []int{0, 1, 2}, attempts, "each retry's task.processing carries its retryCount")
		slices.SortFunc(failed, func(a, b events.TaskFailedPayload) int { return a.RetryCount - b.RetryCount })
		require.Len(t, failed, 2)
		for i, f := range failed {
			assert.Equal(t, i+1, f.RetryCount)
			assert.False(t, f.NextRetryAt.IsZero(), "task.failed carries nextRetryAt")
			assert.False(t, f.NextRetryAt.Before(f.FailedAt.Time), "the retry is after the failure")
			assert.True(t, f.Error.Retryable)
		}
	})

	t.Run("PoisonRecordIsDeadLetteredAndLaterRecordsFlow", func(t *testing.T) {
		s.t = t
		// The task submitted after the poison record is keyed like it, so it
		// lands on the same partition, behind it.
		const idem = "e2e-after-poison"
		taskID := events.DeriveID(events.TaskIDPrefix, "idempotency", idem)
		poison := &kgo.Record{Topic: events.TopicTasks, Key: []byte(taskID), Value: []byte(`{"hello":"not an envelope"}`)}
		require.NoError(t, s.kafka().ProduceSync(context.Background(), poison).FirstErr())

		var sub struct {
			TaskID string `json:"taskId"`
		}
		require.Equal(t, http.StatusCreated, s.call("POST", "/api/tasks", []byte(`{"type":"report_generation","data":{}}`),
			http.Header{"Idempotency-Key": {idem}}, &sub))
		require.Equal(t, taskID, sub.TaskID)
		var task store.Task
		s.eventually(20*time.Second, func() bool {
			s.call("GET", "/api/tasks/"+taskID, nil, nil, &task)
			return task.Status == status.TaskCompleted
		}, "the task behind the poison record is %s", task.Status)

		dlq := testenv.Consume(t, s.Brokers(), events.TopicTasks+".dlq", 10*time.Second, func(r *kgo.Record) bool {
			return testenv.Header(r, "dlq-original-partition") == strconv.Itoa(int(poison.Partition)) &&
				testenv.Header(r, "dlq-original-offset") == strconv.FormatInt(poison.Offset, 10)
		})
		assert.Equal(t, poison.Value, dlq.Value, "tasks.dlq holds the record as it arrived")
		assert.Equal(t, "undecodable", testenv.Header(dlq, "dlq-reason"))

		var page struct {
			DeadLetters []store.DeadLetterEntry `json:"deadLetters"`
		}
		require.Equal(t, http.StatusOK, s.call("GET", "/api/dead-letters?topic=tasks", nil, nil, &page))
		assert.True(t, slices.ContainsFunc(page.DeadLetters, func(d store.DeadLetterEntry) bool {
			return d.Topic == events.TopicTasks && d.Partition == poison.Partition && d.Offset == poison.Offset &&
				d.Reason == "undecodable" && d.Processor == "task-processor" && string(d.Value) == string(poison.Value)
		}), "GET /api/dead-letters lists the poison record: %+v", page.DeadLetters)
	})
}

// assertSeed003Sequence checks the events of one webhook-started workflow
// against seed 003: each lifecycle event once (three step completions, in
// step order), every workflow event about the same workflow and
// correlated to the webhook event, and timestamps that never go back along
// the lifecycle.
func assertSeed003Sequence(t *testing.T, evs []events.Envelope) {
	t.Helper()
	want := map[events.Type]int{}
	for _, typ := range workflowSequence {
		want[typ]++
	}
	require.Equal(t, want, typesOf(evs))
	rank := func(e events.Envelope) int {
		r := slices.Index(workflowSequence, e.EventType) * 10
		if e.EventType == events.WorkflowStepCompleted {
			p, _ := events.PayloadAs[events.WorkflowStepCompletedPayload](e)
			r += p.StepIndex
		}
		return r
	}
	ordered := slices.Clone(evs)
	slices.SortStableFunc(ordered, func(a, b events.Envelope) int { return rank(a) - rank(b) })
	ids := func(evs []events.Envelope) (out []string) {
		for _, e := range evs {
			out = append(out, fmt.Sprintf("%s#%d", e.EventType, rank(e)))
		}
		return out
	}
	assert.Equal(t, ids(ordered), ids(evs), "GET /api/events answers an execution's events in causal order")
	var workflowID string
	for i, e := range ordered {
		if i > 0 {
			assert.False(t, e.Timestamp.Before(ordered[i-1].Timestamp.Time), "%s is stamped before %s", e.EventType, ordered[i-1].EventType)
		}
		assert.Equal(t, ordered[0].Metadata.CorrelationID, e.Metadata.CorrelationID, "every event correlates to the webhook event")
		if e.EventType == events.WebhookReceived {
			continue
		}
		var p struct {
			WorkflowID string `json:"workflowId"`
		}
		require.NoError(t, json.Unmarshal(e.Payload, &p))
		if workflowID == "" {
			workflowID = p.WorkflowID
		}
		assert.Equal(t, workflowID, p.WorkflowID)
	}
	for i, e := range ordered[3:6] {
		p, err := events.PayloadAs[events.WorkflowStepCompletedPayload](e)
		require.NoError(t, err)
		assert.Equal(t, i, p.StepIndex)
		assert.Equal(t, []string{"validate", "transform", "store"}[i], p.StepName)
	}
}

func isType(t events.Type) func(events.Envelope) bool {
	return func(e events.Envelope) bool { return e.EventType == t }
}

// webhookStatus is the status GET /api/webhook-events shows for id.
func webhookStatus(s *stack, id string) string {
	var page struct {
		WebhookEvents []store.WebhookEvent `json:"webhookEvents"`
	}
	s.call("GET", "/api/webhook-events?provider=stripe&limit=1000", nil, nil, &page)
	for _, ev := range page.WebhookEvents {
		if ev.EventID == id {
			return ev.Status
		}
	}
	return ""
}

// state is what a duplicate delivery must not change: the counts of every
// collection, the webhook event's events, and the topics' end offsets.
type state struct {
	Stats     json.RawMessage
	Events    int
	Workflows map[int32]int64
	Tasks     map[int32]int64
}

func snapshot(s *stack, webhookEventID string) state {
	var st struct {
		Collections json.RawMessage `json:"collections"`
	}
	require.Equal(s.t, http.StatusOK, s.call("GET", "/api/stats", nil, nil, &st))
	return state{
		Stats:     st.Collections,
		Events:    len(s.events(url.Values{"execution_id": {webhookEventID}})),
		Workflows: s.endOffsets(events.TopicWorkflows),
		Tasks:     s.endOffsets(events.TopicTasks),
	}
}
