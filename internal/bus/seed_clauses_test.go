package bus

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/seedtest"
)

// testTopicConfiguration checks seed 003's configuration block of topic
// against the topic table and against the topic EnsureTopics creates on a
// one-broker cluster (the seed's setup): partitions, retention.ms,
// cleanup.policy and, on one broker, the seed's replication factor 1.
// With three or more brokers (MSK) the factor is 3, a deviation
// (TestEnsureTopicsReplicatesOnUpToThreeBrokers, docs/conformance.md).
func testTopicConfiguration(t *testing.T, topic string) {
	seed := seedtest.JSObject(t, "003_topic."+topic+".configuration.js")
	assert.Equal(t, map[string]any{"name": topic, "partitions": 3.0, "replicationFactor": 1.0,
		"retentionMs": 604800000.0, "cleanupPolicy": "delete"}, seed, "the seed as read")

	i := slices.IndexFunc(Topics(), func(s TopicSpec) bool { return s.Name == topic })
	require.GreaterOrEqual(t, i, 0, "%s is in the topic table", topic)
	spec := Topics()[i]
	assert.EqualValues(t, seed["partitions"], spec.Partitions)
	assert.EqualValues(t, seed["retentionMs"], spec.RetentionMs)
	assert.Equal(t, seed["cleanupPolicy"], spec.CleanupPolicy)

	cluster := newCluster(t, 1)
	require.NoError(t, newTestClient(t, Config{Brokers: cluster.ListenAddrs()}).EnsureTopics(testContext(t)))
	adm := newAdmin(t, cluster.ListenAddrs())
	details, err := adm.ListTopics(testContext(t), topic)
	require.NoError(t, err)
	td := details[topic]
	require.NoError(t, td.Err)
	assert.Len(t, td.Partitions, int(seed["partitions"].(float64)))
	for _, p := range td.Partitions {
		assert.Len(t, p.Replicas, int(seed["replicationFactor"].(float64)), "partition %d", p.Partition)
	}
	configs, err := adm.DescribeTopicConfigs(testContext(t), topic)
	require.NoError(t, err)
	rc, err := configs.On(topic, nil)
	require.NoError(t, err)
	got := map[string]string{}
	for _, c := range rc.Configs {
		got[c.Key] = c.MaybeValue()
	}
	assert.Equal(t, strconv.FormatFloat(seed["retentionMs"].(float64), 'f', -1, 64), got["retention.ms"])
	assert.Equal(t, seed["cleanupPolicy"], got["cleanup.policy"])
}

// TestSeed003TopicWorkflowsConfiguration is seed 003's `workflows` topic:
// 3 partitions, replication factor 1, retention 7 days, cleanup delete.
func TestSeed003TopicWorkflowsConfiguration(t *testing.T) {
	testTopicConfiguration(t, events.TopicWorkflows)
}

// TestSeed003TopicTasksConfiguration is seed 003's `tasks` topic: the
// same configuration as workflows.
func TestSeed003TopicTasksConfiguration(t *testing.T) {
	testTopicConfiguration(t, events.TopicTasks)
}

// TestSeed003KafkaMessageHeaders is seed 003's "Kafka Message Structure"
// headers, content-type application/json and schema-version 1.0.0, on
// every record the producer builds from a seed example.
func TestSeed003KafkaMessageHeaders(t *testing.T) {
	want := map[string]string{}
	for k, v := range seedtest.Types(t, "003_message_format.kafka_message_structure.js") {
		if name, ok := strings.CutPrefix(k, "headers."); ok {
			want[name] = strings.Trim(v, `"`)
		}
	}
	require.Equal(t, map[string]string{"content-type": "application/json", "schema-version": "1.0.0"}, want)
	for _, typ := range events.Types {
		if typ == events.WebhookReceived || slices.Contains(events.OperationsTypes, typ) { // no seed example
			continue
		}
		t.Run(string(typ), func(t *testing.T) {
			name := "003_event." + string(typ) + ".json"
			if typ == events.TaskDeadLetter {
				name += "c"
			}
			var env events.Envelope
			require.NoError(t, json.Unmarshal(seedtest.JSON(t, name), &env))
			r, err := NewRecord(env, "")
			require.NoError(t, err)
			assert.Equal(t, want, headerMap(r.Headers))
		})
	}
}

// TestSeed003KafkaMessageExample is seed 003's "Example Kafka Message": the
// producer builds that record from the example's event. The example elides
// the payload (/* ... */); its key is the workflowId the payload carries,
// so the test puts it there. The record's timestamp is not compared here
// (record timestamps: see docs/conformance.md).
func TestSeed003KafkaMessageExample(t *testing.T) {
	example := seedtest.JSObject(t, "003_message_format.example_kafka_message.js")
	key := example["key"].(string)
	value := example["value"].(map[string]any)
	value["payload"].(map[string]any)["workflowId"] = key
	raw, err := json.Marshal(value)
	require.NoError(t, err)
	var env events.Envelope
	require.NoError(t, json.Unmarshal(raw, &env))

	r, err := NewRecord(env, "")
	require.NoError(t, err)
	assert.Equal(t, events.TopicWorkflows, r.Topic)
	assert.Equal(t, key, string(r.Key))
	var got map[string]any
	require.NoError(t, json.Unmarshal(r.Value, &got), "value is the JSON-serialised event")
	for _, k := range []string{"eventType", "eventId", "payload"} {
		assert.Equal(t, value[k], got[k], k)
	}
	// The same instant; producers write it with milliseconds (.000Z).
	seedAt, err := time.Parse(time.RFC3339Nano, value["timestamp"].(string))
	require.NoError(t, err)
	gotAt, err := time.Parse(time.RFC3339Nano, got["timestamp"].(string))
	require.NoError(t, err)
	assert.True(t, seedAt.Equal(gotAt), "timestamp %s is %s", got["timestamp"], value["timestamp"])
	headers := map[string]string{}
	for k, v := range example["headers"].(map[string]any) {
		headers[k] = v.(string)
	}
	assert.Equal(t, headers, headerMap(r.Headers))
}
