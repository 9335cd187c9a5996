package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/loadprobe"
	"github.com/streamops/streamops/internal/status"
	"github.com/streamops/streamops/internal/submit"
	"github.com/streamops/streamops/internal/testenv"
)

// largestWorkflow is the largest POST /api/workflows the default limits
// allow: a name of DefaultMaxNameBytes, DefaultMaxSteps steps that each
// touch every record (validate with a schema, transform with a mapping,
// store), and as many records as fit DefaultMaxInputBytes.
func largestWorkflow(t *testing.T) []byte {
	steps := make([]string, 0, submit.DefaultMaxSteps)
	for len(steps) < submit.DefaultMaxSteps {
		steps = append(steps, []string{"validate", "transform", "store"}[len(steps)%3])
	}
	head := `{"schema":{"type":"object","required":["id","amount"],"properties":{"id":{"type":"integer"},"amount":{"type":"integer"}}},` +
		`"mapping":{"id":"id","amount":"amount","note":"note"},"dataset":"largest","records":[`
	var b strings.Builder
	b.WriteString(head)
	for i := 0; ; i++ {
		rec := fmt.Sprintf(`{"id":%d,"amount":%d,"note":"n"}`, i, i*3)
		if b.Len()+len(rec)+3 > submit.DefaultMaxInputBytes {
			break
		}
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(rec)
	}
	b.WriteString("]}")
	input := b.String()
	require.LessOrEqual(t, len(input), submit.DefaultMaxInputBytes)
	require.Greater(t, len(input), submit.DefaultMaxInputBytes-64, "as large as allowed")
	body, err := json.Marshal(map[string]any{"name": strings.Repeat("n", submit.DefaultMaxNameBytes), "steps": steps,
		"priority": "high", "input": json.RawMessage(input)})
	require.NoError(t, err)
	return body
}

// The contract bound of class 4: while the largest workflow the limits
// allow runs in the local stack, signed webhooks are still answered well
// within a second. A fixed number of webhooks is sent from the moment the
// workflow is accepted; the bound is the contract's (1 s), not a
// micro-benchmark's.
func TestLargestAllowedWorkflowDoesNotPushWebhookAnswersPastOneSecond(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the largest allowed workflow: not in -short (the race run)")
	}
	const webhooks, senders = 200, 4
	s := start(t, "", nil)
	fixtureBody := testenv.Testdata(t, "webhooks/stripe-invoice-finalized.json")

	var created struct {
		WorkflowID string `json:"workflowId"`
	}
	require.Equal(t, http.StatusCreated, s.call("POST", "/api/workflows", largestWorkflow(t), nil, &created))
	accepted := time.Now()

	// When the workflow is seen completed (its state, written after its
	// records and events), so as to count the webhooks answered before.
	var completedAt time.Time
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		for time.Since(accepted) < 3*time.Minute {
			var wf struct{ Status string }
			if st, b, err := s.do("GET", "/api/workflows/"+created.WorkflowID, nil, nil); err == nil && st == http.StatusOK &&
				json.Unmarshal(b, &wf) == nil && (wf.Status == status.WorkflowCompleted || wf.Status == status.WorkflowFailed) {
				completedAt = time.Now()
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()

	latencies := make([]time.Duration, webhooks)
	answered := make([]time.Time, webhooks)
	statuses := make([]int, webhooks)
	next := make(chan int)
	var wg sync.WaitGroup
	for range senders {
		wg.Go(func() {
			for i := range next {
				var ev map[string]any
				require.NoError(t, json.Unmarshal(fixtureBody, &ev))
				ev["id"] = fmt.Sprintf("evt_largest_%d_%d", accepted.UnixNano(), i)
				body, _ := json.Marshal(ev)
				h := s.signedStripe(body)
				start := time.Now()
				status, _, err := s.do("POST", "/webhooks/stripe", body, h)
				latencies[i], answered[i], statuses[i] = time.Since(start), time.Now(), status
				assert.NoError(t, err)
			}
		})
	}
	for i := range webhooks {
		next <- i
	}
	close(next)
	wg.Wait()

	<-watched
	var wf struct{ Status string }
	require.Equal(t, http.StatusOK, s.call("GET", "/api/workflows/"+created.WorkflowID, nil, nil, &wf))
	require.Equal(t, status.WorkflowCompleted, wf.Status, "the largest allowed workflow completes")
	require.Len(t, s.events(url.Values{"aggregate_id": {created.WorkflowID}, "event_types": {string(events.WorkflowCompleted)}}), 1)

	during := 0
	for i, at := range answered {
		assert.Equal(t, http.StatusAccepted, statuses[i], "webhook %d", i)
		if at.Before(completedAt) {
			during++
		}
	}
	sorted := slices.Clone(latencies)
	slices.Sort(sorted)
	p50, p99 := loadprobe.Percentile(sorted, 0.50), loadprobe.Percentile(sorted, 0.99)
	t.Logf("largest allowed workflow (%d steps, %d-byte input) completed %s after it was accepted; %d signed webhooks (%d senders), %d answered before that: p50 %s, p99 %s, max %s",
		submit.DefaultMaxSteps, submit.DefaultMaxInputBytes, completedAt.Sub(accepted).Round(time.Millisecond), webhooks, senders, during,
		p50.Round(time.Millisecond), p99.Round(time.Millisecond), sorted[len(sorted)-1].Round(time.Millisecond))
	require.Positive(t, during, "the webhooks were sent while the workflow ran")
	assert.Less(t, p99, time.Second, "webhook p99 while the largest allowed workflow runs")
}
