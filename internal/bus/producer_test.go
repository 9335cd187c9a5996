package bus

import (
	"encoding/json"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/events/eventstest"
	"github.com/streamops/streamops/internal/fault"
)

func TestNewRecordBuildsTheSeedMessage(t *testing.T) {
	at := time.Date(2026, 1, 4, 1, 9, 27, 123e6, time.UTC)
	wf := eventstest.WorkflowCreated("a1b2c3d4-e5f6-4890-abcd-ef1234567890", "a1b2c3d4-e5f6-4890-abcd-ef1234567890",
		"Data Processing Pipeline", "high", at, "validate", "transform", "store")
	task := eventstest.TaskCreated("f6a7b8c9-d0e1-4345-a123-456789012345", "0b6f3c1e-8d2a-4c5b-9e7f-1a2b3c4d5e6f", "email_notification", at,
		map[string]string{"recipient": "user@example.com"})
	v2 := wf
	v2.SchemaVersion = "2.0.0"
	unversioned := task
	unversioned.SchemaVersion = ""

	tests := []struct {
		name          string
		env           events.Envelope
		topic         string
		wantTopic     string
		wantKey       string
		wantSchemaVer string
	}{
		{"workflow event goes to workflows keyed by workflowId", wf, "", "workflows", "wf-a1b2c3d4-e5f6-4890-abcd-ef1234567890", "1.0.0"},
		{"task event goes to tasks keyed by taskId", task, "", "tasks", "task-0b6f3c1e-8d2a-4c5b-9e7f-1a2b3c4d5e6f", "1.0.0"},
		{"override topic wins", wf, "replay-target", "replay-target", "wf-a1b2c3d4-e5f6-4890-abcd-ef1234567890", "1.0.0"},
		{"envelope schema version goes to the header", v2, "", "workflows", "wf-a1b2c3d4-e5f6-4890-abcd-ef1234567890", "2.0.0"},
		{"unversioned envelope gets the current version", unversioned, "", "tasks", "task-0b6f3c1e-8d2a-4c5b-9e7f-1a2b3c4d5e6f", "1.0.0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := NewRecord(tt.env, tt.topic)
			require.NoError(t, err)
			assert.Equal(t, tt.wantTopic, r.Topic)
			assert.Equal(t, tt.wantKey, string(r.Key))
			assert.True(t, r.Timestamp.IsZero(), "stamped when produced, not with the event's time")
			assert.Equal(t, map[string]string{"content-type": "application/json", "schema-version": tt.wantSchemaVer}, headerMap(r.Headers))
			want, err := json.Marshal(tt.env)
			require.NoError(t, err)
			assert.JSONEq(t, string(want), string(r.Value))
		})
	}
}

func TestNewRecordRejectsUnroutableEvents(t *testing.T) {
	tests := []struct {
		name string
		env  events.Envelope
	}{
		{"webhook.received has no topic", events.Envelope{EventType: events.WebhookReceived, EventID: "evt-1", Payload: json.RawMessage(`{"webhookEventId":"whe-1"}`)}},
		{"unknown type has no topic", events.Envelope{EventType: "order.created", EventID: "evt-2", Payload: json.RawMessage(`{"workflowId":"wf-1"}`)}},
		{"payload without workflowId or taskId has no key", events.Envelope{EventType: events.TaskCreated, EventID: "evt-3", Payload: json.RawMessage(`{"type":"data_export"}`)}},
		{"payload that is not JSON has no key", events.Envelope{EventType: events.TaskCreated, EventID: "evt-4", Payload: json.RawMessage(`{`)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewRecord(tt.env, "")
			assert.ErrorIs(t, err, ErrUnroutable)
			assert.False(t, fault.IsRetryable(err))
		})
	}
}

func TestPublishWithoutEventsDoesNothing(t *testing.T) {
	c := newTestClient(t, Config{Brokers: []string{"127.0.0.1:1"}})
	assert.NoError(t, c.Publish(testContext(t)))
	assert.NoError(t, c.PublishRecords(testContext(t), nil))
}

// produceRequests records every produce request a kfake cluster receives.
type produceRequests struct {
	mu          sync.Mutex
	acks        []int16
	producerIDs []int64
}

func watchProduce(cluster *kfake.Cluster) *produceRequests {
	w := new(produceRequests)
	cluster.ControlKey(int16(kmsg.Produce), func(req kmsg.Request) (kmsg.Response, error, bool) {
		cluster.KeepControl()
		pr := req.(*kmsg.ProduceRequest)
		w.mu.Lock()
		defer w.mu.Unlock()
		w.acks = append(w.acks, pr.Acks)
		for _, tp := range pr.Topics {
			for _, p := range tp.Partitions {
				var batch kmsg.RecordBatch
				if batch.ReadFrom(p.Records) == nil {
					w.producerIDs = append(w.producerIDs, batch.ProducerID)
				}
			}
		}
		return nil, nil, false
	})
	return w
}

func TestPublishIsIdempotentWithAllAcksAndOneFlush(t *testing.T) {
	cluster := newCluster(t, 1, events.TopicWorkflows)
	c := newTestClient(t, Config{Brokers: cluster.ListenAddrs()})
	watched := watchProduce(cluster)

	const n = 300
	envs := make([]events.Envelope, n)
	for i := range envs {
		envs[i] = eventstest.WorkflowCreated(eventstest.NewUUID(), eventstest.NewUUID(), "pipeline", "low", time.Now(), "validate")
	}
	require.NoError(t, c.Publish(testContext(t), envs...))

	watched.mu.Lock()
	defer watched.mu.Unlock()
	require.NotEmpty(t, watched.acks)
	for _, a := range watched.acks {
		assert.Equal(t, int16(-1), a, "acks=all")
	}
	for _, id := range watched.producerIDs {
		assert.GreaterOrEqual(t, id, int64(0), "an idempotent producer has a producer id")
	}
	assert.Less(t, len(watched.acks), n/10, "%d events took %d produce requests", n, len(watched.acks))
}

func TestPublishToUnreachableBrokerFailsRetryablyInBoundedTime(t *testing.T) {
	const timeout = 500 * time.Millisecond
	closedPort := func(t *testing.T) []string {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		addr := ln.Addr().String()
		require.NoError(t, ln.Close())
		return []string{addr}
	}
	tests := []struct {
		name    string
		connect func(t *testing.T) (brokers []string, stop func())
	}{
		{"broker stopped after a successful publish", func(t *testing.T) ([]string, func()) {
			cluster := newCluster(t, 1, events.TopicWorkflows)
			return cluster.ListenAddrs(), cluster.Close
		}},
		{"broker never reachable", func(t *testing.T) ([]string, func()) { return closedPort(t), nil }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			brokers, stop := tt.connect(t)
			c := newTestClient(t, Config{Brokers: brokers, ProduceTimeout: timeout, DialTimeout: timeout})
			if stop != nil {
				require.NoError(t, c.Publish(testContext(t), eventstest.WorkflowCreated(eventstest.NewUUID(), eventstest.NewUUID(), "warm-up", "low", time.Now(), "validate")))
				stop()
			}
			envs := []events.Envelope{
				eventstest.WorkflowCreated(eventstest.NewUUID(), eventstest.NewUUID(), "a", "low", time.Now(), "validate"),
				eventstest.WorkflowCreated(eventstest.NewUUID(), eventstest.NewUUID(), "b", "low", time.Now(), "validate"),
			}

			start := time.Now()
			err := c.Publish(testContext(t), envs...)
			elapsed := time.Since(start)

			require.Error(t, err)
			assert.True(t, fault.IsRetryable(err), "%v", err)
			t.Logf("Publish failed after %s: %v", elapsed, err)
			assert.Less(t, elapsed, timeout+time.Second)
			var pe *PublishError
			require.ErrorAs(t, err, &pe)
			assert.Equal(t, []string{envs[0].EventID, envs[1].EventID}, pe.EventIDs())
			for _, f := range pe.Failed {
				assert.Equal(t, events.TopicWorkflows, f.Topic)
				assert.Equal(t, envs[0].AggregateID()[:3], f.Key[:3])
				assert.NotNil(t, f.Record)
			}
		})
	}
}

func TestPublishRecordsReportsFailedRecordsInInputOrder(t *testing.T) {
	c := newTestClient(t, Config{Brokers: []string{"127.0.0.1:1"}, ProduceTimeout: 200 * time.Millisecond})
	recs := []*kgo.Record{
		{Topic: "tasks.dlq", Key: []byte("task-1"), Value: []byte("{}")},
		{Topic: "workflows.dlq", Key: []byte("wf-1"), Value: []byte("{}")},
	}
	err := c.PublishRecords(testContext(t), recs)
	var pe *PublishError
	require.ErrorAs(t, err, &pe)
	require.Len(t, pe.Failed, 2)
	assert.Same(t, recs[0], pe.Failed[0].Record)
	assert.Same(t, recs[1], pe.Failed[1].Record)
	assert.Equal(t, "task-1", pe.Failed[0].Key)
	assert.True(t, fault.IsRetryable(err))
}
