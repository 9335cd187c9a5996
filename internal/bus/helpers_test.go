package bus

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamops/streamops/events"
)

// uuidFrom reads a version 4 UUID from r (crypto/rand for tests, a seeded
// stream for reproducible fixtures).
func uuidFrom(r io.Reader) string {
	var b [16]byte
	if _, err := io.ReadFull(r, b[:]); err != nil {
		panic(err)
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

func newUUID() string { return uuidFrom(rand.Reader) }

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

var (
	apiMetadata       = &events.Metadata{Source: "api-gateway", UserID: events.Null, APIVersion: "1.0.0"}
	processorMetadata = &events.Metadata{Source: "event-processor", ProcessorID: "worker-1"}
)

// The builders below write seed-003 envelopes field for field.

func workflowCreated(evtID, wfID, name, priority string, at time.Time, steps ...string) events.Envelope {
	ts := events.At(at)
	return events.Envelope{
		EventType: events.WorkflowCreated, EventID: "evt-" + evtID, Timestamp: ts, SchemaVersion: events.SchemaVersion,
		Payload: mustJSON(struct {
			WorkflowID string      `json:"workflowId"`
			Name       string      `json:"name"`
			Steps      []string    `json:"steps"`
			Priority   string      `json:"priority"`
			CreatedAt  events.Time `json:"createdAt"`
		}{"wf-" + wfID, name, steps, priority, ts}),
		Metadata: apiMetadata,
	}
}

func workflowProcessing(evtID, wfID string, at time.Time, step string, index int) events.Envelope {
	ts := events.At(at)
	return events.Envelope{
		EventType: events.WorkflowProcessing, EventID: "evt-" + evtID, Timestamp: ts, SchemaVersion: events.SchemaVersion,
		Payload: mustJSON(struct {
			WorkflowID       string      `json:"workflowId"`
			StartedAt        events.Time `json:"startedAt"`
			CurrentStep      string      `json:"currentStep"`
			CurrentStepIndex int         `json:"currentStepIndex"`
		}{"wf-" + wfID, ts, step, index}),
		Metadata: processorMetadata,
	}
}

func workflowStepCompleted(evtID, wfID string, at time.Time, step string, index int, durationMs int64) events.Envelope {
	ts := events.At(at)
	return events.Envelope{
		EventType: events.WorkflowStepCompleted, EventID: "evt-" + evtID, Timestamp: ts, SchemaVersion: events.SchemaVersion,
		Payload: mustJSON(struct {
			WorkflowID  string         `json:"workflowId"`
			StepName    string         `json:"stepName"`
			StepIndex   int            `json:"stepIndex"`
			CompletedAt events.Time    `json:"completedAt"`
			Duration    int64          `json:"duration"`
			Result      map[string]int `json:"result"`
		}{"wf-" + wfID, step, index, ts, durationMs, map[string]int{"recordsProcessed": 1000}}),
	}
}

func workflowCompleted(evtID, wfID string, at time.Time, durationMs int64, steps int) events.Envelope {
	ts := events.At(at)
	return events.Envelope{
		EventType: events.WorkflowCompleted, EventID: "evt-" + evtID, Timestamp: ts, SchemaVersion: events.SchemaVersion,
		Payload: mustJSON(struct {
			WorkflowID     string         `json:"workflowId"`
			CompletedAt    events.Time    `json:"completedAt"`
			Duration       int64          `json:"duration"`
			StepsCompleted int            `json:"stepsCompleted"`
			Summary        map[string]int `json:"summary"`
		}{"wf-" + wfID, ts, durationMs, steps, map[string]int{"totalRecords": 1000, "successfulRecords": 950, "failedRecords": 50}}),
		Metadata: processorMetadata,
	}
}

func taskCreated(evtID, taskID, taskType string, at time.Time, data any) events.Envelope {
	ts := events.At(at)
	return events.Envelope{
		EventType: events.TaskCreated, EventID: "evt-" + evtID, Timestamp: ts, SchemaVersion: events.SchemaVersion,
		Payload: mustJSON(struct {
			TaskID     string      `json:"taskId"`
			Type       string      `json:"type"`
			Data       any         `json:"data"`
			RetryCount int         `json:"retryCount"`
			MaxRetries int         `json:"maxRetries"`
			CreatedAt  events.Time `json:"createdAt"`
		}{"task-" + taskID, taskType, data, 0, 3, ts}),
		Metadata: &events.Metadata{Source: "api-gateway", UserID: events.Null},
	}
}

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func newTestClient(t *testing.T, cfg Config) *Client {
	t.Helper()
	c, err := New(cfg)
	require.NoError(t, err)
	t.Cleanup(c.Close)
	return c
}

func newAdmin(t *testing.T, brokers []string) *kadm.Client {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...))
	require.NoError(t, err)
	t.Cleanup(cl.Close)
	return kadm.NewClient(cl)
}

// endOffsets snapshots where each partition of topic ends, so a test reads
// only what it produced even on a shared cluster.
func endOffsets(t *testing.T, adm *kadm.Client, topic string) map[int32]kgo.Offset {
	t.Helper()
	listed, err := adm.ListEndOffsets(testContext(t), topic)
	require.NoError(t, err)
	out := make(map[int32]kgo.Offset)
	listed.Each(func(o kadm.ListedOffset) {
		require.NoError(t, o.Err)
		out[o.Partition] = kgo.NewOffset().At(o.Offset)
	})
	require.NotEmpty(t, out, "topic %s has no partitions", topic)
	return out
}

// consume reads n records of topic from the given offsets.
func consume(t *testing.T, brokers []string, topic string, from map[int32]kgo.Offset, n int) []*kgo.Record {
	t.Helper()
	cl, err := kgo.NewClient(
		kgo.SeedBrokers(brokers...),
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: from}),
		kgo.FetchMaxWait(200*time.Millisecond),
	)
	require.NoError(t, err)
	defer cl.Close()
	ctx := testContext(t)
	var out []*kgo.Record
	for len(out) < n {
		fetches := cl.PollFetches(ctx)
		require.NoError(t, ctx.Err(), "consumed %d of %d records of %s", len(out), n, topic)
		fetches.EachError(func(topic string, p int32, err error) { require.NoError(t, err, "%s-%d", topic, p) })
		out = append(out, fetches.Records()...)
	}
	require.Len(t, out, n)
	return out
}

// expectedPartition is the partition Kafka's default (murmur2) partitioner
// chooses for key among n partitions.
func expectedPartition(topic string, key []byte, n int) int32 {
	p := kgo.StickyKeyPartitioner(nil).ForTopic(topic)
	return int32(p.Partition(&kgo.Record{Key: key}, n))
}

func headerMap(hs []kgo.RecordHeader) map[string]string {
	m := make(map[string]string, len(hs))
	for _, h := range hs {
		m[h.Key] = string(h.Value)
	}
	return m
}
