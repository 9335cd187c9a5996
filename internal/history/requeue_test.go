package history

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/jsonbody"
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
	q := &Requeuer{Store: env.Store, Publisher: env.Bus}

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

func TestARequeuedDeadLetterGoesBackAsItArrived(t *testing.T) {
	dl := deadLetterFromDocument(store.DeadLetterEntry{ID: "dl-1", DeadLetterID: "dl-1", Topic: "workflows",
		Value: []byte(`not json`), Headers: []store.DeadLetterHeader{{Key: "traceparent", Value: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}}})
	rec := dl.record("")
	assert.Nil(t, rec.Key, "no key stays no key")
	assert.Equal(t, "workflows", rec.Topic)
	require.Len(t, rec.Headers, 2)
	assert.Equal(t, "traceparent", rec.Headers[0].Key, "the record goes back in its trace")
	assert.Equal(t, "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", string(rec.Headers[0].Value))
	assert.Equal(t, HeaderRequeuedFrom, rec.Headers[1].Key)
	rec = dl.record("alice")
	require.Len(t, rec.Headers, 3, "a requeue by a principal names it")
	assert.Equal(t, HeaderRequeuedBy, rec.Headers[2].Key)
	assert.Equal(t, "alice", string(rec.Headers[2].Value))
	assert.Equal(t, []byte(`not json`), rec.Value, "the record's value, its event, is as it arrived")
	_, ok := dl.envelope()
	assert.False(t, ok, "a value that is not an envelope is no event")

	deep := `{"eventId":"evt-1","eventType":"workflow.created","payload":` + strings.Repeat("[", jsonbody.MaxEventDepth) +
		strings.Repeat("]", jsonbody.MaxEventDepth) + `}`
	_, ok = deadLetterFromDocument(store.DeadLetterEntry{Value: []byte(deep)}).envelope()
	assert.False(t, ok, "a value nested past the consumers' limit is no event to store: it goes back as it is")

	dl = deadLetterFromDocument(store.DeadLetterEntry{Key: "wf-1", Value: []byte(`{"eventId":"evt-1","eventType":"workflow.created"}`)})
	assert.Equal(t, []byte("wf-1"), dl.record("").Key)
	env, ok := dl.envelope()
	assert.True(t, ok)
	assert.Equal(t, "evt-1", env.EventID)
}
