package e2e

import (
	"encoding/json"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/eventlog"
	"github.com/streamops/streamops/internal/testenv"
)

// logLine is one JSON line of the stack's log.
type logLine map[string]any

func (l logLine) str(k string) string { s, _ := l[k].(string); return s }

// logLines are the stack's JSON log lines with message msg.
func logLines(t *testing.T, s *stack, msg string) []logLine {
	t.Helper()
	lines, err := eventlog.Lines[logLine]([]byte(s.logs.String()), msg)
	require.NoError(t, err)
	return lines
}

// The fields of seed 003's two lines ("Example Logging") as the stack
// writes them: the seed's own, and those every line of the logger carries
// (the time, the level, the function, the trace).
var (
	loggerFields   = []string{"time", "level", "msg", "function", "trace_id", "span_id"}
	publishedKeys  = append(slices.Clone(loggerFields), "topic", "eventType", "workflowId", "partition", "offset")
	processedKeys  = append(slices.Clone(loggerFields), "topic", "eventType", "workflowId", "processingTime", "success")
	lifecycleTypes = []events.Type{events.WorkflowCreated, events.WorkflowProcessing, events.WorkflowStepCompleted, events.WorkflowCompleted}
)

// A real webhook run logs seed 003's lines: an "Event published" line for
// every event of its workflow, with the partition and offset its record
// has on the broker, and the workflow-processor's "Event processed" line
// for the workflow.created it acted on, with its processingTime and
// success, all in the trace the events carry.
func TestSeed003LogsEveryPublishedAndProcessedEventOfAWebhookRun(t *testing.T) {
	s := start(t, "", nil)
	body := testenv.Testdata(t, "webhooks/stripe-invoice-finalized.json")
	var hook receipt
	require.Equal(t, http.StatusAccepted, s.call("POST", "/webhooks/stripe", body, s.signedStripe(body), &hook))
	var evs []events.Envelope
	s.eventually(20*time.Second, func() bool {
		evs = s.events(url.Values{"execution_id": {hook.WebhookEventID}})
		return typesOf(evs)[events.WorkflowCompleted] == 1
	}, "the workflow of webhook %s did not complete: %v", hook.WebhookEventID, typesOf(evs))
	created := evs[slices.IndexFunc(evs, isType(events.WorkflowCreated))]
	workflowID := created.AggregateID()
	traceID := created.Metadata.TraceID
	require.NotEmpty(t, traceID)

	// Every event of the workflow that went to Kafka has one published
	// line (the retry-sweeper may republish one the webhook's inline
	// publish missed: a second line, at a second offset).
	var processed []logLine
	s.eventually(10*time.Second, func() bool {
		processed = nil
		for _, l := range logLines(t, s, eventlog.MsgProcessed) {
			if l.str("workflowId") == workflowID {
				processed = append(processed, l)
			}
		}
		return len(processed) > 0
	}, "no %q line for workflow %s", eventlog.MsgProcessed, workflowID)
	published := map[string][]logLine{}
	for _, l := range logLines(t, s, eventlog.MsgPublished) {
		if l.str("workflowId") == workflowID {
			published[l.str("eventType")] = append(published[l.str("eventType")], l)
		}
	}
	for _, e := range evs {
		if e.EventType.Topic() == "" {
			continue // webhook.received is history only
		}
		assert.NotEmpty(t, published[string(e.EventType)], "no published line for %s %s", e.EventType, e.EventID)
	}
	for _, typ := range lifecycleTypes {
		for _, l := range published[string(typ)] {
			assert.ElementsMatch(t, publishedKeys, slices.Collect(maps.Keys(l)), "%s: the seed's fields and the logger's", typ)
			assert.Equal(t, "INFO", l.str("level"))
			assert.Equal(t, events.TopicWorkflows, l.str("topic"))
			assert.Equal(t, traceID, l.str("trace_id"), "%s is in the webhook's trace", typ)
		}
	}
	require.NotEmpty(t, published[string(events.WorkflowCreated)])
	first := published[string(events.WorkflowCreated)][0]
	assert.Contains(t, []string{"webhook", "retry-sweeper"}, first.str("function"), "the webhook publishes it, the sweeper if that missed")
	assert.Equal(t, "workflow-processor", published[string(events.WorkflowCompleted)][0].str("function"))

	// The partition and offset are where the record is.
	partition, offset := int32(first["partition"].(float64)), int64(first["offset"].(float64))
	rec := testenv.Consume(t, s.Brokers(), events.TopicWorkflows, 10*time.Second, func(r *kgo.Record) bool {
		return r.Partition == partition && r.Offset == offset
	})
	assert.Equal(t, workflowID, string(rec.Key))
	var onKafka events.Envelope
	require.NoError(t, json.Unmarshal(rec.Value, &onKafka))
	assert.Equal(t, created.EventID, onKafka.EventID)

	// The workflow-processor acted on the workflow.created once and
	// skipped the lifecycle events it emitted itself.
	require.Len(t, processed, 1, "one processed line: the lifecycle events are skipped")
	l := processed[0]
	assert.ElementsMatch(t, processedKeys, slices.Collect(maps.Keys(l)), "the seed's fields and the logger's")
	assert.Equal(t, "INFO", l.str("level"))
	assert.Equal(t, "workflow-processor", l.str("function"))
	assert.Equal(t, events.TopicWorkflows, l.str("topic"))
	assert.Equal(t, string(events.WorkflowCreated), l.str("eventType"))
	assert.Equal(t, true, l["success"])
	assert.GreaterOrEqual(t, l["processingTime"].(float64), 0.0)
	assert.Equal(t, traceID, l.str("trace_id"), "in the webhook's trace")
}
