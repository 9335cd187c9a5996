package history_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/history"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/testenv"
)

// TestARequeuedConsumedEventKeepsTheFieldsItsProducerAdded: a dead letter
// whose event a newer 1.x producer wrote (fields this version does not
// name in its envelope, metadata and payload) goes back to its topic byte
// for byte, and the event stored for it on the way keeps every field, so
// a later replay publishes them too.
func TestARequeuedConsumedEventKeepsTheFieldsItsProducerAdded(t *testing.T) {
	env := testenv.New(t, testenv.Options{})
	value := []byte(`{"eventType":"workflow.created","eventId":"test-1","timestamp":"2026-01-04T01:00:00.000Z","schemaVersion":"1.4.0",` +
		`"payload":{"workflowId":"wf-test","name":"Test","steps":["validate"],"priority":"low","createdAt":"2026-01-04T01:00:00.000Z","labels":["a"]},` +
		`"metadata":{"source":"partner-gateway","tenant":"acme"},"traceparent":"00-abc-01"}`)
	_, err := env.Store.InsertDeadLetters(context.Background(), store.DeadLetterEntry{Processor: "workflow-processor",
		Topic: events.TopicWorkflows, Offset: 7, Key: "wf-test", Value: value, Reason: "processing-failed", ReceivedAt: time.Now(),
		EventType: "workflow.created", EventID: "test-1"})
	require.NoError(t, err)
	dls, _, err := env.Store.ListDeadLetters(context.Background(), store.DeadLetterQuery{})
	require.NoError(t, err)
	require.Len(t, dls, 1)
	q := &history.Requeuer{Store: env.Store, Publisher: env.Bus}

	n, err := q.Requeue(context.Background(), "admin", dls[0])
	require.NoError(t, err)
	assert.Equal(t, 1, n)

	rec := testenv.Consume(t, env.Brokers, events.TopicWorkflows, 10*time.Second, func(r *kgo.Record) bool { return string(r.Key) == "wf-test" })
	require.NotNil(t, rec)
	assert.Equal(t, string(value), string(rec.Value), "requeued as it arrived")

	doc, err := env.Store.GetEvent(context.Background(), "test-1")
	require.NoError(t, err)
	stored, err := doc.Envelope()
	require.NoError(t, err)
	again, err := json.Marshal(stored)
	require.NoError(t, err)
	assert.JSONEq(t, string(value), string(again), "stored with every field, for a replay")
}
