package bus

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/streamops/streamops/events"
)

// DefaultPartitions is the partition count of a topic the configuration
// does not name: seed 003's 3.
const DefaultPartitions int32 = 3

// MaxPartitions is the largest partition count a topic may be configured
// with. A broker of Amazon MSK's smallest standard size (kafka.m5.large)
// is advised to hold at most 1,000 partitions, replicas included; a topic
// larger than that is a typo (10000 for 1000) far more often than a plan.
const MaxPartitions int32 = 1000

// PartitionCounts is the partition count of every topic
// (STREAMOPS_KAFKA_PARTITIONS, the CDK context kafkaPartitions). A
// dead-letter topic always has its source topic's count, so a dead letter
// keeps its key's partition number. The zero value is every topic at
// DefaultPartitions.
type PartitionCounts struct {
	// Default is the count of every topic ByTopic does not name. 0 means
	// DefaultPartitions.
	Default int32
	// ByTopic overrides Default for the topics it names: workflows, tasks
	// or operations (PartitionedTopics).
	ByTopic map[string]int32
}

// PartitionedTopics are the topics PartitionCounts.ByTopic may name: every
// topic of Topics but the dead-letter ones, which follow their source.
func PartitionedTopics() []string {
	return []string{events.TopicWorkflows, events.TopicTasks, events.TopicOperations}
}

// ParsePartitionCounts reads the partition setting: one number for every
// topic ("12"), topic=count entries ("workflows=12,tasks=6", the others at
// DefaultPartitions), or both, the bare number being the default for the
// topics not named ("6,workflows=12"). Blank is every topic at
// DefaultPartitions. The error names the entry and what is wanted.
func ParsePartitionCounts(s string) (PartitionCounts, error) {
	var p PartitionCounts
	haveDefault := false
	for _, entry := range strings.Split(s, ",") {
		entry = strings.TrimSpace(entry)
		if entry == "" {
			continue
		}
		topic, count, named := strings.Cut(entry, "=")
		topic = strings.TrimSpace(topic)
		if !named {
			topic, count = "", entry
		}
		n, err := strconv.ParseInt(strings.TrimSpace(count), 10, 32)
		if err != nil {
			return PartitionCounts{}, fmt.Errorf("bus: partitions %q: want a whole number, or topic=number (such as 12 or workflows=12,tasks=6)", entry)
		}
		switch {
		case !named && haveDefault:
			return PartitionCounts{}, fmt.Errorf("bus: partitions %q: a second bare number; name the topic (topic=number)", entry)
		case !named:
			// Checked here: 0 would read as "the default" and hide the
			// mistake.
			if err := partitionsInRange("every topic", int32(n)); err != nil {
				return PartitionCounts{}, err
			}
			haveDefault = true
			p.Default = int32(n)
		default:
			if _, dup := p.ByTopic[topic]; dup {
				return PartitionCounts{}, fmt.Errorf("bus: partitions %q: topic %s named twice", entry, topic)
			}
			if p.ByTopic == nil {
				p.ByTopic = map[string]int32{}
			}
			p.ByTopic[topic] = int32(n)
		}
	}
	if err := p.Validate(); err != nil {
		return PartitionCounts{}, err
	}
	return p, nil
}

// UnmarshalText parses the setting (ParsePartitionCounts), so the
// configuration reads it straight from the environment.
func (p *PartitionCounts) UnmarshalText(b []byte) error {
	v, err := ParsePartitionCounts(string(b))
	if err != nil {
		return err
	}
	*p = v
	return nil
}

// Validate refuses a count below 1 or above MaxPartitions and a topic
// that is not one of PartitionedTopics.
func (p PartitionCounts) Validate() error {
	if p.Default != 0 {
		if err := partitionsInRange("every topic", p.Default); err != nil {
			return err
		}
	}
	for _, topic := range slices.Sorted(maps.Keys(p.ByTopic)) {
		if !slices.Contains(PartitionedTopics(), topic) {
			return fmt.Errorf("bus: partitions: unknown topic %q: want one of %s (a dead-letter topic has its source topic's count)",
				topic, strings.Join(PartitionedTopics(), ", "))
		}
		if err := partitionsInRange(topic, p.ByTopic[topic]); err != nil {
			return err
		}
	}
	return nil
}

// partitionsInRange refuses a count below 1 or above MaxPartitions.
func partitionsInRange(what string, n int32) error {
	if n < 1 || n > MaxPartitions {
		return fmt.Errorf("bus: partitions of %s: %d is outside 1 to %d", what, n, MaxPartitions)
	}
	return nil
}

// For returns the partition count of topic; a dead-letter topic gets its
// source topic's.
func (p PartitionCounts) For(topic string) int32 {
	topic = strings.TrimSuffix(topic, events.DLQSuffix)
	if n, ok := p.ByTopic[topic]; ok {
		return n
	}
	if p.Default != 0 {
		return p.Default
	}
	return DefaultPartitions
}

// String writes p in the form ParsePartitionCounts reads, every
// partitioned topic named, so two settings that mean the same compare
// equal (the custom resource's property changes only when a count does).
func (p PartitionCounts) String() string {
	var b strings.Builder
	for i, topic := range PartitionedTopics() {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%s=%d", topic, p.For(topic))
	}
	return b.String()
}
