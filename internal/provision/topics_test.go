package provision_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/cfn"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamops/streamops/internal/bus"
	"github.com/streamops/streamops/internal/provision"
	"github.com/streamops/streamops/internal/testenv"
)

// The handler runs against kfake, a real Kafka-protocol broker, through
// the same bus.Client the Lambda builds.

func newCluster(t *testing.T) (*provision.Topics, *kadm.Client) {
	t.Helper()
	cluster := testenv.Broker(t)
	client, err := bus.New(bus.Config{Brokers: cluster.ListenAddrs()})
	require.NoError(t, err)
	t.Cleanup(client.Close)
	cl, err := kgo.NewClient(kgo.SeedBrokers(cluster.ListenAddrs()...))
	require.NoError(t, err)
	t.Cleanup(cl.Close)
	return &provision.Topics{Admin: client}, kadm.NewClient(cl)
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	t.Cleanup(cancel)
	return c
}

// event is the request CloudFormation sends, with the stack's Topics
// property.
func event(kind cfn.RequestType, physicalID string) cfn.Event {
	return cfn.Event{
		RequestType:        kind,
		ResourceType:       "Custom::KafkaTopics",
		LogicalResourceID:  "KafkaTopics",
		PhysicalResourceID: physicalID,
		ResourceProperties: map[string]any{
			"ServiceToken":           "arn:aws:lambda:eu-west-1:111111111111:function:kafka-topics",
			provision.PropertyTopics: []any{"workflows", "tasks", "workflows.dlq", "tasks.dlq", "operations"},
		},
	}
}

// assertTopicsAsTheTableSays checks every topic of bus.Topics: partitions,
// retention.ms and cleanup.policy.
func assertTopicsAsTheTableSays(t *testing.T, adm *kadm.Client) {
	t.Helper()
	details, err := adm.ListTopics(ctx(t))
	require.NoError(t, err)
	var names []string
	for _, spec := range bus.Topics() {
		names = append(names, spec.Name)
		td, ok := details[spec.Name]
		require.True(t, ok, "topic %s missing", spec.Name)
		assert.Len(t, td.Partitions, int(spec.Partitions), spec.Name)
	}
	configs, err := adm.DescribeTopicConfigs(ctx(t), names...)
	require.NoError(t, err)
	for _, spec := range bus.Topics() {
		rc, err := configs.On(spec.Name, nil)
		require.NoError(t, err)
		got := map[string]string{}
		for _, c := range rc.Configs {
			got[c.Key] = c.MaybeValue()
		}
		assert.Equal(t, strconv.FormatInt(spec.RetentionMs, 10), got["retention.ms"], spec.Name)
		assert.Equal(t, spec.CleanupPolicy, got["cleanup.policy"], spec.Name)
	}
}

func TestTopicsCreateMakesSeed003TopicsDeadLetterTopicsAndOperations(t *testing.T) {
	topics, adm := newCluster(t)

	id, data, err := topics.Handle(ctx(t), event(cfn.RequestCreate, ""))

	require.NoError(t, err)
	assert.Equal(t, provision.TopicsPhysicalID, id)
	assert.Equal(t, "workflows,tasks,workflows.dlq,tasks.dlq,operations", data[provision.PropertyTopics])
	assertTopicsAsTheTableSays(t, adm)
}

func TestTopicsCreateAndUpdateAreIdempotentAndLeaveLiveTopicsAlone(t *testing.T) {
	topics, adm := newCluster(t)
	// An operator created workflows by hand with a longer retention, and
	// tasks.dlq was deleted since the last deploy.
	_, err := adm.CreateTopic(ctx(t), 3, 1, map[string]*string{"retention.ms": kadm.StringPtr("999999999")}, "workflows")
	require.NoError(t, err)

	id, _, err := topics.Handle(ctx(t), event(cfn.RequestCreate, ""))
	require.NoError(t, err)
	_, err = adm.DeleteTopic(ctx(t), "tasks.dlq")
	require.NoError(t, err)
	updated, _, err := topics.Handle(ctx(t), event(cfn.RequestUpdate, id))
	require.NoError(t, err)
	again, _, err := topics.Handle(ctx(t), event(cfn.RequestUpdate, updated))
	require.NoError(t, err)

	assert.Equal(t, id, updated, "an update keeps the physical id, so CloudFormation sends no Delete")
	assert.Equal(t, id, again)
	details, err := adm.ListTopics(ctx(t))
	require.NoError(t, err)
	assert.Contains(t, details, "tasks.dlq", "update recreates a missing topic")
	configs, err := adm.DescribeTopicConfigs(ctx(t), "workflows")
	require.NoError(t, err)
	rc, err := configs.On("workflows", nil)
	require.NoError(t, err)
	for _, c := range rc.Configs {
		if c.Key == "retention.ms" {
			assert.Equal(t, "999999999", c.MaybeValue(), "a live topic's settings are an operator's, not the deploy's")
		}
	}
}

func TestTopicsDeleteSucceedsAndKeepsEveryTopic(t *testing.T) {
	topics, adm := newCluster(t)
	id, _, err := topics.Handle(ctx(t), event(cfn.RequestCreate, ""))
	require.NoError(t, err)

	deleted, _, err := topics.Handle(ctx(t), event(cfn.RequestDelete, id))

	require.NoError(t, err, "Delete must answer SUCCESS")
	assert.Equal(t, id, deleted)
	assertTopicsAsTheTableSays(t, adm)
}

func TestTopicsDeleteOfAFailedCreateTouchesNoBroker(t *testing.T) {
	// CloudFormation sends Delete after a failed Create (rollback); the
	// cluster may be the reason it failed, so Delete must not need it.
	topics := goneCluster(t)
	start := time.Now()

	_, _, err := topics.Handle(ctx(t), event(cfn.RequestDelete, "2026/11/24/[$LATEST]abc"))

	require.NoError(t, err)
	assert.Less(t, time.Since(start), time.Second, "Delete waited on a broker")
}

func TestTopicsRefusesAStackThatAsksForOtherTopics(t *testing.T) {
	topics, adm := newCluster(t)
	ev := event(cfn.RequestCreate, "")
	ev.ResourceProperties[provision.PropertyTopics] = []any{"workflows", "tasks", "audit"}

	_, _, err := topics.Handle(ctx(t), ev)

	require.Error(t, err)
	assert.Contains(t, err.Error(), "audit")
	details, err := adm.ListTopics(ctx(t))
	require.NoError(t, err)
	assert.Empty(t, details, "nothing is created when the stack and the build disagree")
}

func TestTopicsCreateOnAnUnreachableClusterFailsBeforeTheDeadline(t *testing.T) {
	topics := goneCluster(t)
	topics.ReplyMargin = time.Second
	c, cancel := context.WithTimeout(t.Context(), 2*time.Second)
	defer cancel()
	start := time.Now()

	_, _, err := topics.Handle(c, event(cfn.RequestCreate, ""))

	require.Error(t, err)
	assert.Less(t, time.Since(start), 1500*time.Millisecond, "the margin is left to send the FAILED response")
}

// goneCluster is the handler on a cluster that was there and is gone:
// every broker call fails or waits until the context ends.
func goneCluster(t *testing.T) *provision.Topics {
	t.Helper()
	cluster, err := kfake.NewCluster(kfake.NumBrokers(1))
	require.NoError(t, err)
	addrs := cluster.ListenAddrs()
	cluster.Close()
	client, err := bus.New(bus.Config{Brokers: addrs})
	require.NoError(t, err)
	t.Cleanup(client.Close)
	return &provision.Topics{Admin: client}
}

func TestTopicsUpdateGrowsPartitionsAndRefusesToShrink(t *testing.T) {
	topics, adm := newCluster(t)
	withPartitions := func(kind cfn.RequestType, id, partitions string) cfn.Event {
		ev := event(kind, id)
		ev.ResourceProperties[provision.PropertyPartitions] = partitions
		return ev
	}
	partitions := func() map[string]int {
		t.Helper()
		details, err := adm.ListTopics(ctx(t))
		require.NoError(t, err)
		got := map[string]int{}
		for name, td := range details {
			got[name] = len(td.Partitions)
		}
		return got
	}

	id, data, err := topics.Handle(ctx(t), withPartitions(cfn.RequestCreate, "", "3"))
	require.NoError(t, err)
	assert.Equal(t, "workflows=3,tasks=3,operations=3", data[provision.PropertyPartitions])

	_, data, err = topics.Handle(ctx(t), withPartitions(cfn.RequestUpdate, id, "workflows=6"))
	require.NoError(t, err)
	assert.Equal(t, "workflows=6,tasks=3,operations=3", data[provision.PropertyPartitions])
	grown := map[string]int{"workflows": 6, "workflows.dlq": 6, "tasks": 3, "tasks.dlq": 3, "operations": 3}
	assert.Equal(t, grown, partitions(), "3 → 6: partitions are added, the dead letters follow")

	_, _, err = topics.Handle(ctx(t), withPartitions(cfn.RequestUpdate, id, "workflows=4,tasks=12"))
	require.ErrorIs(t, err, bus.ErrShrinkPartitions)
	assert.Contains(t, err.Error(), "topic workflows has 6 partitions, the configuration asks for 4")
	assert.Equal(t, grown, partitions(), "a refused shrink changes nothing")
}

func TestTopicsRefusesABadPartitionsProperty(t *testing.T) {
	tests := []struct {
		name string
		prop any
		want string
	}{
		{"zero", "0", "0 is outside 1 to 1000"},
		{"above the bound", "workflows=5000", "5000 is outside 1 to 1000"},
		{"not a count", "many", `"many": want a whole number`},
		{"not a string", []any{"3"}, "want a string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			topics, adm := newCluster(t)
			ev := event(cfn.RequestCreate, "")
			ev.ResourceProperties[provision.PropertyPartitions] = tt.prop

			_, _, err := topics.Handle(ctx(t), ev)

			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
			details, err := adm.ListTopics(ctx(t))
			require.NoError(t, err)
			assert.Empty(t, details, "nothing is created")
		})
	}
}
