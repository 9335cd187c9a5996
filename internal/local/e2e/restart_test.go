package e2e

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/backoff"
	"github.com/streamops/streamops/internal/local"
	"github.com/streamops/streamops/internal/status"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/testenv"
)

// accepted is one request the stack answered 2xx, and how to see its
// final state.
type accepted struct {
	kind string // webhook, workflow, task
	id   string // webhookEventId, workflowId, taskId
}

// TestRestartMidRunLosesNothing stops the stack (as Ctrl-C does) while
// webhooks, workflows and tasks are arriving and being processed, starts it
// again on the same data directory, and checks that every request it
// answered 2xx reaches its final state, exactly once.
func TestRestartMidRunLosesNothing(t *testing.T) {
	dir := t.TempDir()
	x := &flaky{attempts: map[string]int{}}
	// Retries come 2 s after a failure: a task that failed before the stop
	// is retried by the stack that runs after it.
	const retryAfter = 2 * time.Second
	retryLater := local.WithTaskBackoff(backoff.Schedule{retryAfter})
	first := start(t, dir, x, retryLater)

	const perKind = 12
	var (
		mu       sync.Mutex
		acks     []accepted
		wg       sync.WaitGroup
		progress = make(chan string, 3*perKind)
	)
	send := func(i int, kind string) {
		defer wg.Done()
		time.Sleep(time.Duration(rand.IntN(400)) * time.Millisecond)
		var (
			status int
			body   []byte
			err    error
			out    struct {
				WebhookEventID string `json:"webhookEventId"`
				WorkflowID     string `json:"workflowId"`
				TaskID         string `json:"taskId"`
			}
		)
		switch kind {
		case "webhook":
			payload := strings.Replace(string(testenv.Testdata(t, "webhooks/stripe-invoice-finalized.json")),
				"evt_1QdXyZ2eZvKYlo2C8hTn4bLm", fmt.Sprintf("evt_restart_%02d", i), 1)
			status, body, err = first.do("POST", "/webhooks/stripe", []byte(payload), first.signedStripe([]byte(payload)))
		case "workflow":
			status, body, err = first.do("POST", "/api/workflows", fmt.Appendf(nil,
				`{"name":"Restart %d","steps":["validate","transform","store"],"priority":"medium","input":{"records":[{"n":%d}]}}`, i, i), nil)
		case "task":
			// Each fails once, so its retry goes through the retry-sweeper,
			// possibly across the restart.
			status, body, err = first.do("POST", "/api/tasks", []byte(`{"type":"report_generation","data":{"failTimes":1},"maxRetries":3}`), nil)
		}
		if err != nil || status/100 != 2 {
			return // refused while stopping: not accepted, nothing to check
		}
		if !assert.NoError(t, jsonUnmarshal(body, &out), "%s", body) {
			return
		}
		mu.Lock()
		acks = append(acks, accepted{kind, out.WebhookEventID + out.WorkflowID + out.TaskID})
		mu.Unlock()
		progress <- kind
	}
	for i := range perKind {
		wg.Add(3)
		go send(i, "webhook")
		go send(i, "workflow")
		go send(i, "task")
	}
	// Mid-run: stop once a third of the requests (two tasks among them)
	// were accepted, while the rest are arriving and being processed.
	for n, tasks := 0, 0; n < perKind || tasks < 2; n++ {
		select {
		case kind := <-progress:
			if kind == "task" {
				tasks++
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("only %d requests (%d tasks) were accepted", n, tasks)
		}
	}
	stopping := time.Now()
	require.NoError(t, first.Shutdown(context.Background()))
	stopTook := time.Since(stopping)
	wg.Wait()
	require.NotEmpty(t, acks, "some requests were accepted before the stop")
	t.Logf("%d of %d requests accepted before the stop; batches done before it: %+v", len(acks), 3*perKind, first.MappingStats())

	second := start(t, dir, x, retryLater)
	for _, a := range acks {
		switch a.kind {
		case "webhook":
			var evs []events.Envelope
			second.eventually(30*time.Second, func() bool {
				evs = second.events(url.Values{"execution_id": {a.id}})
				return typesOf(evs)[events.WorkflowCompleted] > 0
			}, "the workflow of webhook %s did not complete: %v", a.id, typesOf(evs))
			assertSeed003Sequence(t, evs)
			second.eventually(10*time.Second, func() bool { return webhookStatus(second, a.id) == status.WebhookCompleted },
				"webhook event %s is %q", a.id, webhookStatus(second, a.id))
		case "workflow":
			var wf store.Workflow
			second.eventually(30*time.Second, func() bool {
				second.call("GET", "/api/workflows/"+a.id, nil, nil, &wf)
				return wf.Status == status.WorkflowCompleted
			}, "workflow %s is %q", a.id, wf.Status)
			assert.Equal(t, map[events.Type]int{events.WorkflowCreated: 1, events.WorkflowProcessing: 1,
				events.WorkflowStepCompleted: 3, events.WorkflowCompleted: 1},
				typesOf(second.events(url.Values{"aggregate_id": {a.id}})), "workflow %s ran exactly once", a.id)
		case "task":
			var tk store.Task
			second.eventually(30*time.Second, func() bool {
				second.call("GET", "/api/tasks/"+a.id, nil, nil, &tk)
				return tk.Status == status.TaskCompleted
			}, "task %s is %q (retryCount %d)", a.id, tk.Status, tk.RetryCount)
			types := typesOf(second.events(url.Values{"aggregate_id": {a.id}}))
			assert.Equal(t, 1, types[events.TaskCompleted])
			assert.Equal(t, 1, types[events.TaskCreated], "task %s: its retry, even across the restart, is no new task.created", a.id)
			assert.Equal(t, 2, types[events.TaskProcessing], "task %s: attempt 0 and its retry, each once", a.id)
		}
	}
	after := second.MappingStats()
	t.Logf("batches done after the restart: %+v", after)
	if stopTook < retryAfter/2 { // a very slow stop (the race detector) may let the first stack finish everything
		assert.NotZero(t, after[local.FnTaskProcessor].Records, "work that was under way at the stop went on after the restart")
	}
	var stats struct {
		Collections map[string]map[string]map[string]int `json:"collections"`
	}
	require.Equal(t, http.StatusOK, second.call("GET", "/api/stats", nil, nil, &stats))
	assert.Empty(t, stats.Collections["dead_letters"]["status"], "nothing was dead-lettered")
}
