package local

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/internal/bus"
)

func TestConfigReadsKafkaPartitionsAndRefusesBadCounts(t *testing.T) {
	tests := []struct {
		env       string
		workflows int32
		tasks     int32
		err       string
	}{
		{env: "", workflows: 3, tasks: 3},
		{env: "12", workflows: 12, tasks: 12},
		{env: "workflows=12,tasks=6", workflows: 12, tasks: 6},
		{env: "0", err: "STREAMOPS_KAFKA_PARTITIONS"},
		{env: "1001", err: "outside 1 to 1000"},
		{env: "audit=3", err: `unknown topic "audit"`},
	}
	for _, tt := range tests {
		t.Run(tt.env, func(t *testing.T) {
			t.Setenv("STREAMOPS_KAFKA_PARTITIONS", tt.env)
			cfg, err := ConfigFromEnv()
			if tt.err != "" {
				assert.ErrorContains(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.workflows, cfg.KafkaPartitions.For("workflows"))
			assert.Equal(t, tt.tasks, cfg.KafkaPartitions.For("tasks.dlq"))
		})
	}
	err := Config{KafkaPartitions: bus.PartitionCounts{ByTopic: map[string]int32{"tasks": -1}}}.Validate()
	assert.ErrorContains(t, err, "KafkaPartitions")
}
