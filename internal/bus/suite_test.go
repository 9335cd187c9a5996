package bus

import (
	"context"
	"encoding/json"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/events/eventstest"
	"github.com/streamops/streamops/internal/fault"
)

// TestBusContractOnKfake runs the bus contract on an in-process kfake
// broker that starts without topics, so EnsureTopics creates them.
func TestBusContractOnKfake(t *testing.T) {
	runContractSuite(t, newCluster(t, 1).ListenAddrs())
}

// TestBusContractOnKafka runs the same contract on the cluster named by
// KAFKA_BROKERS (comma separated), when set.
func TestBusContractOnKafka(t *testing.T) {
	brokers := ParseBrokers(os.Getenv("KAFKA_BROKERS"))
	if len(brokers) == 0 {
		t.Skip("KAFKA_BROKERS not set")
	}
	runContractSuite(t, brokers)
}

// runContractSuite is what every Kafka-protocol backend must pass. It only
// reads what it wrote (fresh ids, offsets snapshotted before producing), so
// it is safe on a shared cluster.
func runContractSuite(t *testing.T, brokers []string) {
	client := newTestClient(t, Config{Brokers: brokers})
	adm := newAdmin(t, brokers)
	require.NoError(t, client.EnsureTopics(testContext(t)))

	t.Run("EnsureTopicsCreatesSeedTopicsWithRetentionAndCleanup", func(t *testing.T) {
		testEnsureTopicsCreatesSeedTopics(t, adm)
	})
	t.Run("EnsureTopicsIsIdempotent", func(t *testing.T) {
		require.NoError(t, client.EnsureTopics(testContext(t)))
		require.NoError(t, client.EnsureTopics(testContext(t)))
		testEnsureTopicsCreatesSeedTopics(t, adm)
	})
	publishTests := []struct {
		name string
		run  func(t *testing.T, brokers []string, client *Client, adm *kadm.Client)
	}{
		{"PublishKeepsPerWorkflowOrder", testPublishKeepsPerWorkflowOrder},
		{"PublishWritesKeyValueTimestampAndHeaders", testPublishWritesKeyValueTimestampAndHeaders},
		{"EveryProducePathStampsTheProduceTime", testEveryProducePathStampsTheProduceTime},
		{"PublishToSendsReplaysToAnotherTopic", testPublishToSendsReplaysToAnotherTopic},
		{"PublishNamesUnroutableEventsAndPublishesTheRest", testPublishNamesUnroutableEvents},
		{"PublishRecordsDeliversDeadLettersWithTheirHeaders", testPublishRecordsDeliversDeadLetters},
	}
	for _, tt := range publishTests {
		t.Run(tt.name, func(t *testing.T) { tt.run(t, brokers, client, adm) })
	}
}

func testEnsureTopicsCreatesSeedTopics(t *testing.T, adm *kadm.Client) {
	ctx := testContext(t)
	specs := Topics()
	names := make([]string, len(specs))
	for i, s := range specs {
		names[i] = s.Name
	}
	assert.ElementsMatch(t, []string{"workflows", "tasks", "workflows.dlq", "tasks.dlq", "operations"}, names)

	details, err := adm.ListTopics(ctx, names...)
	require.NoError(t, err)
	configs, err := adm.DescribeTopicConfigs(ctx, names...)
	require.NoError(t, err)
	for _, spec := range specs {
		td, ok := details[spec.Name]
		require.True(t, ok, "topic %s missing", spec.Name)
		require.NoError(t, td.Err)
		assert.Len(t, td.Partitions, 3, spec.Name)

		rc, err := configs.On(spec.Name, nil)
		require.NoError(t, err)
		require.NoError(t, rc.Err)
		got := map[string]string{}
		for _, c := range rc.Configs {
			got[c.Key] = c.MaybeValue()
		}
		assert.Equal(t, strconv.FormatInt(spec.RetentionMs, 10), got["retention.ms"], spec.Name)
		assert.Equal(t, "delete", got["cleanup.policy"], spec.Name)
	}
	assert.Equal(t, "604800000", strconv.FormatInt(specs[0].RetentionMs, 10), "seed 003: 7 days")
}

func testPublishKeepsPerWorkflowOrder(t *testing.T, brokers []string, client *Client, adm *kadm.Client) {
	from := endOffsets(t, adm, events.TopicWorkflows)
	base := time.Now().UTC().Truncate(time.Millisecond)

	// A hundred workflows, each with its whole lifecycle, interleaved in
	// one call: 800 events, enough to be encoded on several goroutines.
	wfIDs := make([]string, 100)
	for i := range wfIDs {
		wfIDs[i] = eventstest.NewUUID()
	}
	var envs []events.Envelope
	steps := []string{"validate", "transform", "store"}
	at := func(i int) time.Time { return base.Add(time.Duration(i) * time.Millisecond) }
	for _, wf := range wfIDs {
		envs = append(envs, eventstest.WorkflowCreated(eventstest.NewUUID(), wf, "Data Processing Pipeline", "high", at(len(envs)), steps...))
	}
	for i, step := range steps {
		for _, wf := range wfIDs {
			envs = append(envs, eventstest.WorkflowProcessing(eventstest.NewUUID(), wf, at(len(envs)), step, i))
			envs = append(envs, eventstest.WorkflowStepCompleted(eventstest.NewUUID(), wf, at(len(envs)), step, i, 3333))
		}
	}
	for _, wf := range wfIDs {
		envs = append(envs, eventstest.WorkflowCompleted(eventstest.NewUUID(), wf, at(len(envs)), 17667, 3))
	}
	require.NoError(t, client.Publish(testContext(t), envs...))

	recs := consume(t, brokers, events.TopicWorkflows, from, len(envs))
	// Records of one partition arrive in offset order; keep per workflow.
	gotOrder := map[string][]string{}
	gotPartition := map[string]map[int32]bool{}
	for _, r := range recs {
		var env events.Envelope
		require.NoError(t, json.Unmarshal(r.Value, &env))
		key := string(r.Key)
		gotOrder[key] = append(gotOrder[key], env.EventID)
		if gotPartition[key] == nil {
			gotPartition[key] = map[int32]bool{}
		}
		gotPartition[key][r.Partition] = true
	}
	wantOrder := map[string][]string{}
	for _, e := range envs {
		wantOrder[e.AggregateID()] = append(wantOrder[e.AggregateID()], e.EventID)
	}
	for _, wf := range wfIDs {
		key := "wf-" + wf
		assert.Equal(t, wantOrder[key], gotOrder[key], "events of %s out of order", key)
		want := expectedPartition(events.TopicWorkflows, []byte(key), 3)
		assert.Equal(t, map[int32]bool{want: true}, gotPartition[key], "%s must stay on the partition of its key", key)
	}
}

func testPublishWritesKeyValueTimestampAndHeaders(t *testing.T, brokers []string, client *Client, adm *kadm.Client) {
	from := endOffsets(t, adm, events.TopicTasks)
	base := time.Now().UTC().Add(-time.Hour).Truncate(time.Millisecond)
	envs := []events.Envelope{
		eventstest.TaskCreated(eventstest.NewUUID(), eventstest.NewUUID(), "email_notification", base,
			map[string]string{"recipient": "user@example.com", "subject": "Welcome to StreamOps", "template": "welcome_email"}),
		eventstest.TaskCreated(eventstest.NewUUID(), eventstest.NewUUID(), "data_export", base.Add(time.Second),
			map[string]string{"format": "csv", "destination": "s3://exports/daily.csv"}),
		eventstest.TaskCreated(eventstest.NewUUID(), eventstest.NewUUID(), "report_generation", base.Add(2*time.Second),
			map[string]string{"reportType": "monthly", "month": "2026-01"}),
	}
	envs[2].SchemaVersion = "" // pre-versioning event: header still says 1.0.0
	before := time.Now().Truncate(time.Millisecond)
	require.NoError(t, client.Publish(testContext(t), envs...))
	after := time.Now()

	recs := consume(t, brokers, events.TopicTasks, from, len(envs))
	byKey := map[string]*kgo.Record{}
	for _, r := range recs {
		byKey[string(r.Key)] = r
	}
	for _, env := range envs {
		r, ok := byKey[env.AggregateID()]
		require.True(t, ok, "no record keyed %s", env.AggregateID())
		want, err := json.Marshal(env)
		require.NoError(t, err)
		assert.JSONEq(t, string(want), string(r.Value))
		assert.Equal(t, events.TopicTasks, r.Topic)
		assert.Equal(t, expectedPartition(events.TopicTasks, r.Key, 3), r.Partition)
		assert.True(t, !r.Timestamp.Before(before) && !r.Timestamp.After(after),
			"the record timestamp %s is the produce time, in [%s, %s]", r.Timestamp, before, after)
		assert.Contains(t, string(r.Value), `"timestamp":"`+env.Timestamp.String()+`"`, "the event's time stays in the envelope")
		h := headerMap(r.Headers)
		assert.Regexp(t, `^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$`, h["traceparent"], "every record carries its trace")
		delete(h, "traceparent")
		assert.Equal(t, map[string]string{"content-type": "application/json", "schema-version": "1.0.0"}, h)
	}
}

// testEveryProducePathStampsTheProduceTime: whatever the record carried
// (an event two days old, a dead letter's original timestamp), each way of
// producing sends it with the time it was produced.
func testEveryProducePathStampsTheProduceTime(t *testing.T, brokers []string, client *Client, adm *kadm.Client) {
	old := time.Now().Add(-48 * time.Hour)
	tests := []struct {
		name    string
		topic   string
		produce func(ctx context.Context, env events.Envelope, topic string) error
	}{
		{"Publish (emits, the sweeper, the relay)", events.TopicWorkflows, func(ctx context.Context, env events.Envelope, _ string) error {
			return client.Publish(ctx, env)
		}},
		{"PublishTo (replays to a target topic)", events.DLQTopic(events.TopicWorkflows), func(ctx context.Context, env events.Envelope, topic string) error {
			return client.PublishTo(ctx, topic, env)
		}},
		{"PublishRecords (dead letters, requeues) with an old timestamp", events.TopicWorkflows, func(ctx context.Context, env events.Envelope, topic string) error {
			r, err := NewRecord(env, topic)
			if err != nil {
				return err
			}
			r.Timestamp = old
			return client.PublishRecords(ctx, []*kgo.Record{r})
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := eventstest.WorkflowCreated(eventstest.NewUUID(), eventstest.NewUUID(), "Replay", "low", old, "validate")
			from := endOffsets(t, adm, tt.topic)
			before := time.Now().Truncate(time.Millisecond)
			require.NoError(t, tt.produce(testContext(t), env, tt.topic))
			after := time.Now()
			recs := consume(t, brokers, tt.topic, from, 1)
			r := recs[0]
			assert.True(t, !r.Timestamp.Before(before) && !r.Timestamp.After(after),
				"record timestamp %s, want the produce time in [%s, %s], not the event's %s", r.Timestamp, before, after, env.Timestamp)
		})
	}
}

func testPublishToSendsReplaysToAnotherTopic(t *testing.T, brokers []string, client *Client, adm *kadm.Client) {
	target := events.DLQTopic(events.TopicWorkflows)
	from := endOffsets(t, adm, target)
	env := eventstest.WorkflowCreated(eventstest.NewUUID(), eventstest.NewUUID(), "Replay", "low", time.Now(), "validate")
	require.NoError(t, client.PublishTo(testContext(t), target, env))
	recs := consume(t, brokers, target, from, 1)
	assert.Equal(t, env.AggregateID(), string(recs[0].Key))
}

func testPublishNamesUnroutableEvents(t *testing.T, brokers []string, client *Client, adm *kadm.Client) {
	from := endOffsets(t, adm, events.TopicTasks)
	good := eventstest.TaskCreated(eventstest.NewUUID(), eventstest.NewUUID(), "data_export", time.Now(), map[string]string{"format": "csv"})
	noKey := good
	noKey.EventID = "evt-" + eventstest.NewUUID()
	noKey.Payload = json.RawMessage(`{"type":"data_export"}`)
	history := events.Envelope{EventType: events.WebhookReceived, EventID: "evt-" + eventstest.NewUUID(), Timestamp: events.Now(),
		Payload: json.RawMessage(`{"webhookEventId":"whe-1"}`)}

	err := client.Publish(testContext(t), noKey, good, history)
	var pe *PublishError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, []string{noKey.EventID, history.EventID}, pe.EventIDs())
	assert.Equal(t, 3, pe.Total)
	assert.ErrorIs(t, err, ErrUnroutable)
	assert.False(t, fault.IsRetryable(err))

	recs := consume(t, brokers, events.TopicTasks, from, 1)
	assert.Equal(t, good.AggregateID(), string(recs[0].Key), "the routable event is still published")
}

func testPublishRecordsDeliversDeadLetters(t *testing.T, brokers []string, client *Client, adm *kadm.Client) {
	target := events.DLQTopic(events.TopicTasks)
	from := endOffsets(t, adm, target)
	env := eventstest.TaskCreated(eventstest.NewUUID(), eventstest.NewUUID(), "email_notification", time.Now(), map[string]string{"recipient": "x"})
	poison, err := NewRecord(env, "")
	require.NoError(t, err)
	poison.Partition, poison.Offset = 2, 41

	// The dead-letter format itself is stream's (stream.DeadLetterRecord,
	// tested there); here a record of that shape goes out as given.
	dl := &kgo.Record{Topic: target, Key: poison.Key, Value: poison.Value, Headers: append(slices.Clone(poison.Headers),
		kgo.RecordHeader{Key: "dlq-reason", Value: []byte("schema-invalid")}, kgo.RecordHeader{Key: "dlq-original-topic", Value: []byte("tasks")},
		kgo.RecordHeader{Key: "dlq-original-partition", Value: []byte("2")}, kgo.RecordHeader{Key: "dlq-original-offset", Value: []byte("41")},
		kgo.RecordHeader{Key: "dlq-error", Value: []byte(assert.AnError.Error())})}
	require.NoError(t, client.PublishRecords(testContext(t), []*kgo.Record{dl}))

	got := consume(t, brokers, target, from, 1)[0]
	assert.Equal(t, poison.Key, got.Key)
	assert.Equal(t, poison.Value, got.Value)
	h := headerMap(got.Headers)
	assert.Equal(t, "schema-invalid", h["dlq-reason"])
	assert.Equal(t, "tasks", h["dlq-original-topic"])
	assert.Equal(t, "2", h["dlq-original-partition"])
	assert.Equal(t, "41", h["dlq-original-offset"])
	assert.Equal(t, assert.AnError.Error(), h["dlq-error"])
	assert.Equal(t, "application/json", h["content-type"])
}
