package main

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// The topics' partition counts (context kafkaPartitions), read as
// internal/bus's ParsePartitionCounts reads STREAMOPS_KAFKA_PARTITIONS:
// this module cannot import the main one, so the handler parses the
// resource's Partitions property again with bus's own code and fails the
// deploy on anything this accepted that bus would not.
const (
	// defaultPartitions is seed 003's count, bus.DefaultPartitions.
	defaultPartitions = 3
	// maxPartitions is bus.MaxPartitions: MSK advises at most 1,000
	// partitions per broker of its smallest standard size.
	maxPartitions = 1000
	// maxPollersPerMapping is ProvisionedPollerConfig's MaximumPollers
	// ceiling.
	maxPollersPerMapping = 2000
)

// partitionedTopics are the topics kafkaPartitions may name (bus's
// PartitionedTopics); a dead-letter topic has its source topic's count.
func partitionedTopics() []string { return []string{topicWorkflows, topicTasks, topicOperations} }

// partitionCounts are the partitions of each partitioned topic.
type partitionCounts map[string]int

// parsePartitions reads kafkaPartitions: a number (every topic), a
// string "12", "workflows=12,tasks=6" or "6,workflows=12" (the bare
// number for the topics not named), or an object {"workflows": 12}.
// Unset: every topic at defaultPartitions.
func parsePartitions(v any) (partitionCounts, error) {
	counts := partitionCounts{}
	def := defaultPartitions
	set := func(topic string, n float64) error {
		if n != math.Trunc(n) || n < 1 || n > maxPartitions {
			return fmt.Errorf("%v partitions of %s: want a whole number from 1 to %d", n, cmp.Or(topic, "every topic"), maxPartitions)
		}
		if topic == "" {
			def = int(n)
			return nil
		}
		if !slices.Contains(partitionedTopics(), topic) {
			return fmt.Errorf("unknown topic %q: want one of %s (a dead-letter topic has its source topic's count)", topic, strings.Join(partitionedTopics(), ", "))
		}
		if _, dup := counts[topic]; dup {
			return fmt.Errorf("topic %s named twice", topic)
		}
		counts[topic] = int(n)
		return nil
	}
	switch v := v.(type) {
	case nil:
	case float64:
		if err := set("", v); err != nil {
			return nil, err
		}
	case map[string]any:
		for _, topic := range sortedKeys(v) {
			n, ok := v[topic].(float64)
			if !ok {
				return nil, fmt.Errorf("%s: want a number, got %T", topic, v[topic])
			}
			if err := set(topic, n); err != nil {
				return nil, err
			}
		}
	case string:
		bare := false
		for _, entry := range strings.Split(v, ",") {
			if entry = strings.TrimSpace(entry); entry == "" {
				continue
			}
			topic, count, named := strings.Cut(entry, "=")
			if !named {
				topic, count = "", entry
				if bare {
					return nil, fmt.Errorf("%q: a second bare number; name the topic (topic=number)", entry)
				}
				bare = true
			}
			n, err := strconv.Atoi(strings.TrimSpace(count))
			if err != nil {
				return nil, fmt.Errorf("%q: want a whole number, or topic=number (such as 12 or workflows=12,tasks=6)", entry)
			}
			if err := set(strings.TrimSpace(topic), float64(n)); err != nil {
				return nil, err
			}
		}
	default:
		return nil, fmt.Errorf("want a number, a string such as \"workflows=12,tasks=6\" or an object, got %T", v)
	}
	for _, topic := range partitionedTopics() {
		if _, ok := counts[topic]; !ok {
			counts[topic] = def
		}
	}
	return counts, nil
}

// of returns topic's count; a dead-letter topic has its source's.
func (p partitionCounts) of(topic string) int {
	if n, ok := p[strings.TrimSuffix(topic, dlqSuffix)]; ok {
		return n
	}
	return defaultPartitions
}

// String is the Partitions property of the topics resource, every topic
// named in a fixed order, so the property (and with it the resource)
// changes only when a count does.
func (p partitionCounts) String() string {
	var parts []string
	for _, topic := range partitionedTopics() {
		parts = append(parts, fmt.Sprintf("%s=%d", topic, p.of(topic)))
	}
	return strings.Join(parts, ",")
}

// maxPollers is the MaximumPollers of the mapping that consumes topic:
// mskMaxPollers when the operator set it, else one poller per partition
// (3 for seed 003's 3). A poller drives up to 5 concurrent invocations
// (docs/capacity.md, the pollers line), so n partitions need ⌈n ÷ 5⌉;
// one per partition is more than that, and leaves each partition a
// poller's throughput (5 MB/s) should its records be large.
func (c Config) maxPollers(topic string) int {
	if c.MSKMaxPollers != 0 {
		return c.MSKMaxPollers
	}
	return min(maxPollersPerMapping, c.Partitions.of(topic))
}
