package bus

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestEnsureTopicsReplicatesOnUpToThreeBrokers(t *testing.T) {
	tests := []struct {
		name    string
		brokers int
		rf      int16
		want    int
	}{
		{"one broker: one copy", 1, 0, 1},
		{"two brokers: two copies", 2, 0, 2},
		{"four brokers: three copies", 4, 0, 3},
		{"explicit factor wins", 4, 2, 2},
		{"-1 takes the broker default", 2, -1, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cluster := newCluster(t, tt.brokers)
			c := newTestClient(t, Config{Brokers: cluster.ListenAddrs(), ReplicationFactor: tt.rf})
			require.NoError(t, c.EnsureTopics(testContext(t)))

			details, err := newAdmin(t, cluster.ListenAddrs()).ListTopics(testContext(t))
			require.NoError(t, err)
			for _, spec := range Topics() {
				td, ok := details[spec.Name]
				require.True(t, ok, spec.Name)
				require.Len(t, td.Partitions, int(spec.Partitions))
				for _, p := range td.Partitions {
					assert.Len(t, p.Replicas, tt.want, "%s-%d", spec.Name, p.Partition)
				}
			}
		})
	}
}

func TestTopicsTableIsSeed003PlusDeadLettersAndOperations(t *testing.T) {
	want := []TopicSpec{
		{Name: "workflows", Partitions: 3, RetentionMs: 604800000, CleanupPolicy: "delete"},
		{Name: "tasks", Partitions: 3, RetentionMs: 604800000, CleanupPolicy: "delete"},
		{Name: "workflows.dlq", Partitions: 3, RetentionMs: 1209600000, CleanupPolicy: "delete"},
		{Name: "tasks.dlq", Partitions: 3, RetentionMs: 1209600000, CleanupPolicy: "delete"},
		{Name: "operations", Partitions: 3, RetentionMs: 604800000, CleanupPolicy: "delete"},
	}
	got := Topics()
	for i := range got {
		assert.NotEmpty(t, got[i].Purpose)
		got[i].Purpose = ""
	}
	assert.Equal(t, want, got)

	got[0].Partitions = 99
	assert.Equal(t, int32(3), Topics()[0].Partitions, "callers get their own copy")
	assert.Equal(t, "604800000", *Topics()[0].Configs()["retention.ms"])
}
