package bus

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/events/eventstest"
	"github.com/streamops/streamops/internal/eventlog"
	"github.com/streamops/streamops/internal/tracing"
)

// publishedLine is seed 003's producer line as the JSON handler writes it.
// The lines are written by the publishing goroutine, so the tests' plain
// buffers see them all once Publish returns.
type publishedLine struct {
	Msg        string `json:"msg"`
	Function   string `json:"function"`
	Topic      string `json:"topic"`
	EventType  string `json:"eventType"`
	WorkflowID string `json:"workflowId"`
	TaskID     string `json:"taskId"`
	PartnerID  string `json:"partnerId"`
	Partition  *int32 `json:"partition"`
	Offset     *int64 `json:"offset"`
	TraceID    string `json:"trace_id"`
}

func publishedLines(t *testing.T, out *bytes.Buffer) []publishedLine {
	t.Helper()
	lines, err := eventlog.Lines[publishedLine](out.Bytes(), eventlog.MsgPublished)
	require.NoError(t, err)
	return lines
}

// Every event Publish and PublishTo got acknowledged has its "Event
// published" line, with the partition and offset its record has on the
// broker (read back there), the aggregate id under its topic's key name
// and its own trace; an event that was not published has none.
func TestPublishLogsEveryAcknowledgedEventWithItsPartitionAndOffset(t *testing.T) {
	topics := []string{events.TopicWorkflows, events.TopicTasks, events.TopicOperations, "replay-target"}
	cluster := newCluster(t, 1, topics...)
	brokers := cluster.ListenAddrs()
	var out bytes.Buffer
	log := slog.New(tracing.LogHandler(slog.NewJSONHandler(&out, nil))).With("function", "test-producer")
	c := newTestClient(t, Config{Brokers: brokers, Logger: log})
	at := time.Now()
	partner, err := events.NewEvent(events.PartnerPausedPayload{PartnerID: "acme", By: "ops", At: events.Now()}, &events.Metadata{Source: "test"})
	require.NoError(t, err)
	unroutable := eventstest.TaskCreated(eventstest.NewUUID(), eventstest.NewUUID(), "data_export", at, nil)
	unroutable.EventType = events.WebhookReceived // no topic: refused before it is produced
	const foreignTrace = "0af7651916cd43dd8448eb211c80319c"
	foreign := tracedTask(foreignTrace)

	tests := []struct {
		name   string
		to     string // PublishTo's topic; "" for Publish
		envs   []events.Envelope
		logged int // the first logged envelopes are logged, the rest are not
		field  func(publishedLine) string
	}{
		{"workflows keyed by workflowId", "", []events.Envelope{
			eventstest.WorkflowCreated(eventstest.NewUUID(), eventstest.NewUUID(), "wf", "high", at, "validate"),
			eventstest.WorkflowCreated(eventstest.NewUUID(), eventstest.NewUUID(), "wf", "high", at, "validate"),
		}, 2, func(l publishedLine) string { return l.WorkflowID }},
		{"tasks keyed by taskId, one of another trace, one refused", "", []events.Envelope{
			eventstest.TaskCreated(eventstest.NewUUID(), eventstest.NewUUID(), "data_export", at, nil), foreign, unroutable,
		}, 2, func(l publishedLine) string { return l.TaskID }},
		{"operations keyed by partnerId", "", []events.Envelope{partner}, 1, func(l publishedLine) string { return l.PartnerID }},
		{"a replay target: the event type's key name", "replay-target", []events.Envelope{
			eventstest.WorkflowCreated(eventstest.NewUUID(), eventstest.NewUUID(), "wf", "high", at, "validate"),
		}, 1, func(l publishedLine) string { return l.WorkflowID }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := len(publishedLines(t, &out))
			ctx := tracing.FromTraceparent(testContext(t), callTP, "")
			if tc.to != "" {
				err = c.PublishTo(ctx, tc.to, tc.envs...)
			} else {
				err = c.Publish(ctx, tc.envs...)
			}
			if tc.logged < len(tc.envs) {
				require.Error(t, err)
			} else {
				require.NoError(t, err)
			}
			got := publishedLines(t, &out)[before:]
			require.Len(t, got, tc.logged)
			for i, line := range got {
				env := tc.envs[i]
				topic := tc.to
				if topic == "" {
					topic = env.EventType.Topic()
				}
				assert.Equal(t, "test-producer", line.Function)
				assert.Equal(t, topic, line.Topic)
				assert.Equal(t, string(env.EventType), line.EventType)
				assert.Equal(t, env.AggregateID(), tc.field(line))
				require.NotNil(t, line.Partition)
				require.NotNil(t, line.Offset)
				wantTrace := callTrace
				if env.EventID == foreign.EventID {
					wantTrace = foreignTrace
				}
				assert.Equal(t, wantTrace, line.TraceID, "the line is in its event's trace")

				// The record at that partition and offset is the event's.
				rec := recordAt(t, brokers, topic, *line.Partition, *line.Offset)
				assert.Equal(t, env.AggregateID(), string(rec.Key))
				var got events.Envelope
				require.NoError(t, json.Unmarshal(rec.Value, &got))
				assert.Equal(t, env.EventID, got.EventID)
			}
		})
	}
}

// recordAt reads the record at offset of topic's partition.
func recordAt(t *testing.T, brokers []string, topic string, partition int32, offset int64) *kgo.Record {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.FetchMaxWait(200*time.Millisecond),
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: {partition: kgo.NewOffset().At(offset)}}))
	require.NoError(t, err)
	defer cl.Close()
	ctx := testContext(t)
	for {
		fetches := cl.PollFetches(ctx)
		require.NoError(t, ctx.Err(), "no record at %s-%d@%d", topic, partition, offset)
		for _, r := range fetches.Records() {
			if r.Offset == offset {
				return r
			}
		}
	}
}
