package bus

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParsePartitionCountsReadsANumberOrTopicCounts(t *testing.T) {
	tests := []struct {
		in   string
		want map[string]int32 // every topic of Topics
		err  string
	}{
		{in: "", want: counts(3, 3, 3)},
		{in: " 12 ", want: counts(12, 12, 12)},
		{in: "workflows=12,tasks=6", want: counts(12, 6, 3)},
		{in: "6, workflows = 12", want: counts(12, 6, 6)},
		{in: "operations=1,1000", want: counts(1000, 1000, 1)},
		{in: "1", want: counts(1, 1, 1)},
		{in: "0", err: "0 is outside 1 to 1000"},
		{in: "-3", err: "-3 is outside 1 to 1000"},
		{in: "1001", err: "1001 is outside 1 to 1000"},
		{in: "workflows=0", err: "partitions of workflows: 0 is outside 1 to 1000"},
		{in: "tasks=5000", err: "partitions of tasks: 5000 is outside"},
		{in: "twelve", err: `"twelve": want a whole number, or topic=number`},
		{in: "workflows=", err: `"workflows=": want a whole number`},
		{in: "workflows.dlq=6", err: `unknown topic "workflows.dlq"`},
		{in: "orders=6", err: `unknown topic "orders": want one of workflows, tasks, operations`},
		{in: "workflows=6,workflows=12", err: "topic workflows named twice"},
		{in: "6,12", err: "a second bare number"},
		{in: "99999999999", err: "want a whole number"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			p, err := ParsePartitionCounts(tt.in)
			if tt.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.err)
				return
			}
			require.NoError(t, err)
			got := map[string]int32{}
			for _, spec := range TopicsWith(p) {
				got[spec.Name] = spec.Partitions
			}
			assert.Equal(t, tt.want, got)

			again, err := ParsePartitionCounts(p.String())
			require.NoError(t, err, "String reads back")
			assert.Equal(t, p.String(), again.String())
		})
	}
}

// counts are the partitions of every topic, each dead-letter topic at
// its source's.
func counts(workflows, tasks, operations int32) map[string]int32 {
	return map[string]int32{
		"workflows": workflows, "workflows.dlq": workflows,
		"tasks": tasks, "tasks.dlq": tasks,
		"operations": operations,
	}
}

func TestConfigRefusesPartitionsOutOfRange(t *testing.T) {
	_, err := New(Config{Brokers: []string{"127.0.0.1:9092"}, Partitions: PartitionCounts{Default: 1001}})
	require.ErrorIs(t, err, ErrInvalidConfig)
	assert.Contains(t, err.Error(), "Partitions")
}

func TestEnsureTopicsCreatesTheConfiguredPartitions(t *testing.T) {
	cluster := newCluster(t, 1)
	p, err := ParsePartitionCounts("5,workflows=7")
	require.NoError(t, err)
	c := newTestClient(t, Config{Brokers: cluster.ListenAddrs(), Partitions: p})
	require.NoError(t, c.EnsureTopics(testContext(t)))
	assert.Equal(t, map[string]int32{
		"workflows": 7, "workflows.dlq": 7, "tasks": 5, "tasks.dlq": 5, "operations": 5,
	}, livePartitionCounts(t, c))
}

func TestEnsureTopicsGrowsPartitionsAndRefusesToShrink(t *testing.T) {
	cluster := newCluster(t, 1)
	c := newTestClient(t, Config{Brokers: cluster.ListenAddrs()})
	ctx := testContext(t)
	require.NoError(t, c.EnsureTopics(ctx))
	require.Equal(t, counts(3, 3, 3), livePartitionCounts(t, c), "the seed's 3")

	six, err := ParsePartitionCounts("workflows=6")
	require.NoError(t, err)
	require.NoError(t, c.EnsureTopicsWith(ctx, six))
	assert.Equal(t, counts(6, 3, 3), livePartitionCounts(t, c), "3 → 6: workflows and its dead letters grow, the rest is left")
	require.NoError(t, c.EnsureTopicsWith(ctx, six), "at its count: nothing to do")

	// Shrinking workflows while asking tasks to grow: refused as a whole,
	// so nothing changes.
	shrink, err := ParsePartitionCounts("workflows=4,tasks=9")
	require.NoError(t, err)
	err = c.EnsureTopicsWith(ctx, shrink)
	require.ErrorIs(t, err, ErrShrinkPartitions)
	assert.Contains(t, err.Error(), "topic workflows has 6 partitions, the configuration asks for 4")
	assert.Equal(t, counts(6, 3, 3), livePartitionCounts(t, c), "a refused shrink changes nothing")
}

// livePartitionCounts are the partitions each topic of Topics has on
// c's brokers, read by a fresh admin client (no metadata cache).
func livePartitionCounts(t *testing.T, c *Client) map[string]int32 {
	t.Helper()
	var names []string
	for _, spec := range Topics() {
		names = append(names, spec.Name)
	}
	details, err := newAdmin(t, c.cfg.Brokers).ListTopics(testContext(t), names...)
	require.NoError(t, err)
	live := map[string]int32{}
	for name, td := range details {
		require.NoError(t, td.Err, name)
		live[name] = int32(len(td.Partitions))
	}
	return live
}
