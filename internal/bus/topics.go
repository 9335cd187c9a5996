package bus

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/streamops/streamops/events"
)

// Retention of the StreamOps topics.
const (
	// RetentionMs is seed 003's retention for the event topics: 7 days.
	RetentionMs int64 = 7 * 24 * 60 * 60 * 1000
	// DLQRetentionMs keeps dead letters 14 days, twice the event topics:
	// a poison record needs a human, and a week can pass (holidays, a
	// weekend after a Friday deploy) before anyone triages and replays it.
	DLQRetentionMs int64 = 14 * 24 * 60 * 60 * 1000
	// Partitions is seed 003's partition count for every topic. The dead
	// letter topics match it so a dead letter keeps its key's partition
	// number and per-aggregate order.
	Partitions int32 = 3
	// CleanupDelete is seed 003's cleanup.policy.
	CleanupDelete = "delete"
)

// TopicSpec declares one topic. The CDK app and the local stack create
// topics from the same table (Topics), so this is the only place their shape
// is written down.
type TopicSpec struct {
	// Name is the topic name.
	Name string
	// Partitions is the partition count.
	Partitions int32
	// RetentionMs is the topic's retention.ms.
	RetentionMs int64
	// CleanupPolicy is the topic's cleanup.policy.
	CleanupPolicy string
	// Purpose says what the topic carries, for humans and generated docs.
	Purpose string
}

// Configs returns the topic-level configs to create the topic with.
func (s TopicSpec) Configs() map[string]*string {
	return map[string]*string{
		"retention.ms":   kadm.StringPtr(strconv.FormatInt(s.RetentionMs, 10)),
		"cleanup.policy": kadm.StringPtr(s.CleanupPolicy),
	}
}

// Topics returns the StreamOps topics (seed 003 plus their dead-letter
// topics, and the operations topic of the operational events). It returns a fresh slice each call so no caller can change the
// table for another.
func Topics() []TopicSpec {
	return []TopicSpec{
		{Name: events.TopicWorkflows, Partitions: Partitions, RetentionMs: RetentionMs, CleanupPolicy: CleanupDelete,
			Purpose: "workflow lifecycle events, keyed by workflowId"},
		{Name: events.TopicTasks, Partitions: Partitions, RetentionMs: RetentionMs, CleanupPolicy: CleanupDelete,
			Purpose: "standalone task events, keyed by taskId"},
		{Name: events.DLQTopic(events.TopicWorkflows), Partitions: Partitions, RetentionMs: DLQRetentionMs, CleanupPolicy: CleanupDelete,
			Purpose: "workflows records that could not be processed, with the reason in headers"},
		{Name: events.DLQTopic(events.TopicTasks), Partitions: Partitions, RetentionMs: DLQRetentionMs, CleanupPolicy: CleanupDelete,
			Purpose: "tasks records that could not be processed, with the reason in headers"},
		{Name: events.TopicOperations, Partitions: Partitions, RetentionMs: RetentionMs, CleanupPolicy: CleanupDelete,
			Purpose: "operational events (partner paused/resumed/throttled, breaker opened/closed, delivery dead-lettered), keyed by partnerId"},
	}
}

// EnsureTopics creates every topic of Topics that does not exist yet, with
// Config.ReplicationFactor replicas. A topic that already exists counts as
// success and is left as it is: changing a live topic is a deliberate
// operation, not a side effect of a deploy.
func (c *Client) EnsureTopics(ctx context.Context) error {
	rf, err := c.replicationFactor(ctx)
	if err != nil {
		return err
	}
	var errs []error
	for _, spec := range Topics() {
		resp, err := c.adm.CreateTopics(ctx, spec.Partitions, rf, spec.Configs(), spec.Name)
		if err != nil {
			return fmt.Errorf("bus: create topic %s: %w", spec.Name, err)
		}
		r, ok := resp[spec.Name]
		switch {
		case !ok:
			errs = append(errs, fmt.Errorf("bus: create topic %s: no answer from the broker", spec.Name))
		case r.Err == nil, errors.Is(r.Err, kerr.TopicAlreadyExists):
		default:
			errs = append(errs, fmt.Errorf("bus: create topic %s: %w %s", spec.Name, r.Err, r.ErrMessage))
		}
	}
	return errors.Join(errs...)
}

// replicationFactor resolves Config.ReplicationFactor: 0 becomes
// min(3, live brokers).
func (c *Client) replicationFactor(ctx context.Context) (int16, error) {
	if c.cfg.ReplicationFactor != 0 {
		return c.cfg.ReplicationFactor, nil
	}
	brokers, err := c.adm.ListBrokers(ctx)
	if err != nil {
		return 0, fmt.Errorf("bus: list brokers: %w", err)
	}
	return int16(min(3, max(1, len(brokers)))), nil
}
