package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestKafkaPartitionsContextIsParsedAndBounded(t *testing.T) {
	tests := []struct {
		name  string
		value any
		want  string // the topics resource's Partitions property
		err   string
	}{
		{"unset: the seed's 3", nil, "workflows=3,tasks=3,operations=3", ""},
		{"a number (cdk.json)", float64(12), "workflows=12,tasks=12,operations=12", ""},
		{"a string (-c)", "12", "workflows=12,tasks=12,operations=12", ""},
		{"per topic", "workflows=12,tasks=6", "workflows=12,tasks=6,operations=3", ""},
		{"a default and a topic", "6, workflows = 12", "workflows=12,tasks=6,operations=6", ""},
		{"an object (cdk.json)", map[string]any{"workflows": float64(24)}, "workflows=24,tasks=3,operations=3", ""},
		{"the bound", "1000", "workflows=1000,tasks=1000,operations=1000", ""},
		{"zero", "0", "", "want a whole number from 1 to 1000"},
		{"above the bound", float64(1001), "", "want a whole number from 1 to 1000"},
		{"a fraction", 2.5, "", "want a whole number from 1 to 1000"},
		{"a dead-letter topic", "workflows.dlq=6", "", `unknown topic "workflows.dlq"`},
		{"an unknown topic", map[string]any{"orders": float64(6)}, "", `unknown topic "orders"`},
		{"twice", "tasks=6,tasks=7", "", "tasks named twice"},
		{"two defaults", "6,7", "", "a second bare number"},
		{"not a number", "many", "", "want a whole number, or topic=number"},
		{"a list", []any{"3"}, "", "want a number, a string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := parsePartitions(tt.value)
			if tt.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, p.String())
		})
	}
}

func TestKafkaPartitionsContextIsRefusedByName(t *testing.T) {
	ctx := cdkJSONContext(t)
	ctx[ctxKafkaPartitions] = "workflows=0"
	_, err := configFrom(t, ctx)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "context "+ctxKafkaPartitions+": ")
}

func TestMappingPollersFollowTheirTopicsPartitions(t *testing.T) {
	base := Config{Partitions: partitionCounts{topicWorkflows: 12, topicTasks: 3, topicOperations: 3}}
	assert.Equal(t, 12, base.maxPollers(topicWorkflows), "one poller per partition")
	assert.Equal(t, 3, base.maxPollers(topicTasks), "the seed's 3 as before")
	assert.GreaterOrEqual(t, base.maxPollers(topicWorkflows), (12+4)/5, "at least ⌈partitions ÷ 5⌉, the invocations' need")
	big := Config{Partitions: partitionCounts{topicWorkflows: 1000}}
	assert.Equal(t, 1000, big.maxPollers(topicWorkflows))
	set := base
	set.MSKMaxPollers = 2
	assert.Equal(t, 2, set.maxPollers(topicWorkflows), "mskMaxPollers, when set, is the operator's")
}

// The context value reaches the topics resource and sizes each mapping's
// pollers; the default is the seed's 3 everywhere.
func TestKafkaPartitionsReachTheTopicsResourceAndThePollers(t *testing.T) {
	_, byDefault := stackTemplate(t)
	grown, err := synth(map[string]any{ctxKafkaPartitions: "workflows=12,tasks=6"})
	require.NoError(t, err)
	capped, err := synth(map[string]any{ctxKafkaPartitions: "workflows=12", ctxMSKMaxPollers: "4"})
	require.NoError(t, err)
	tests := []struct {
		name       string
		tmpl       map[string]any
		partitions string
		pollers    map[string]float64 // by topic
	}{
		{"default", byDefault, "workflows=3,tasks=3,operations=3", map[string]float64{topicWorkflows: 3, topicTasks: 3}},
		{"grown", grown.json, "workflows=12,tasks=6,operations=3", map[string]float64{topicWorkflows: 12, topicTasks: 6}},
		{"mskMaxPollers set", capped.json, "workflows=12,tasks=3,operations=3", map[string]float64{topicWorkflows: 4, topicTasks: 4}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			topics := resources(tt.tmpl, "Custom::KafkaTopics")
			require.Len(t, topics, 1)
			for _, res := range topics {
				assert.Equal(t, tt.partitions, props(res)["Partitions"])
			}
			mappings := resources(tt.tmpl, "AWS::Lambda::EventSourceMapping")
			require.Len(t, mappings, len(tt.pollers))
			for id, m := range mappings {
				p := props(m)
				topic := asList(p["Topics"])[0].(string)
				pollers := p["ProvisionedPollerConfig"].(map[string]any)
				assert.Equal(t, tt.pollers[topic], pollers["MaximumPollers"], "%s (%s)", id, topic)
				assert.Equal(t, float64(esmMinPollers), pollers["MinimumPollers"], id)
			}
		})
	}
}
