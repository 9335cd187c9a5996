package bus

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

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
	// Partitions is DefaultPartitions, seed 003's count, for the callers
	// that mean the seed's topics (tests, fixtures). The count a stack
	// runs with is Config.Partitions.
	Partitions = DefaultPartitions
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
// topics, and the operations topic of the operational events), each at
// DefaultPartitions. It returns a fresh slice each call so no caller can
// change the table for another.
func Topics() []TopicSpec { return TopicsWith(PartitionCounts{}) }

// TopicsWith returns Topics with the partition counts of p. A dead-letter
// topic matches its source topic, so a dead letter keeps its key's
// partition number and per-aggregate order.
func TopicsWith(p PartitionCounts) []TopicSpec {
	specs := []TopicSpec{
		{Name: events.TopicWorkflows, RetentionMs: RetentionMs, CleanupPolicy: CleanupDelete,
			Purpose: "workflow lifecycle events, keyed by workflowId"},
		{Name: events.TopicTasks, RetentionMs: RetentionMs, CleanupPolicy: CleanupDelete,
			Purpose: "standalone task events, keyed by taskId"},
		{Name: events.DLQTopic(events.TopicWorkflows), RetentionMs: DLQRetentionMs, CleanupPolicy: CleanupDelete,
			Purpose: "workflows records that could not be processed, with the reason in headers"},
		{Name: events.DLQTopic(events.TopicTasks), RetentionMs: DLQRetentionMs, CleanupPolicy: CleanupDelete,
			Purpose: "tasks records that could not be processed, with the reason in headers"},
		{Name: events.TopicOperations, RetentionMs: RetentionMs, CleanupPolicy: CleanupDelete,
			Purpose: "operational events (partner paused/resumed/throttled, breaker opened/closed, delivery dead-lettered), keyed by partnerId"},
	}
	for i := range specs {
		specs[i].Partitions = p.For(specs[i].Name)
	}
	return specs
}

// EnsureTopics is EnsureTopicsWith the client's Config.Partitions.
func (c *Client) EnsureTopics(ctx context.Context) error {
	return c.EnsureTopicsWith(ctx, c.cfg.Partitions)
}

// EnsureTopicsWith makes every topic of TopicsWith(p) exist with its
// partition count: a missing topic is created (Config.ReplicationFactor
// replicas, the table's configs), a topic with fewer partitions grows to
// its count, and one at its count is left as it is. A topic with more
// partitions than asked is refused with ErrShrinkPartitions before
// anything is created or grown: Kafka cannot remove partitions, and a
// smaller number in the configuration is a mistake to show, not to
// ignore. Other configs of a live topic are never changed: that is a
// deliberate operation, not a side effect of a deploy.
//
// Growing moves keys: the producer hashes a key over the partition count
// (murmur2), so an aggregate's events after the change can land on
// another partition than its events before (docs/deploy.md, "Adding
// partitions").
func (c *Client) EnsureTopicsWith(ctx context.Context, p PartitionCounts) error {
	if err := p.Validate(); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidConfig, err)
	}
	specs := TopicsWith(p)
	names := make([]string, len(specs))
	for i, s := range specs {
		names[i] = s.Name
	}
	live, err := c.livePartitions(ctx, names)
	if err != nil {
		return err
	}
	var create, grow []TopicSpec
	var errs []error
	for _, spec := range specs {
		n, ok := live[spec.Name]
		switch {
		case !ok:
			create = append(create, spec)
		case n < spec.Partitions:
			grow = append(grow, spec)
		case n > spec.Partitions:
			errs = append(errs, fmt.Errorf("%w: topic %s has %d partitions, the configuration asks for %d: set the count back to %d or more (Kafka cannot remove partitions)",
				ErrShrinkPartitions, spec.Name, n, spec.Partitions, n))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	if len(create) > 0 {
		if err := c.createTopics(ctx, create); err != nil {
			return err
		}
	}
	for _, spec := range grow {
		resp, err := c.adm.UpdatePartitions(ctx, int(spec.Partitions), spec.Name)
		if err != nil {
			return fmt.Errorf("bus: add partitions to %s: %w", spec.Name, err)
		}
		if r, ok := resp[spec.Name]; !ok {
			errs = append(errs, fmt.Errorf("bus: add partitions to %s: no answer from the broker", spec.Name))
		} else if r.Err != nil {
			errs = append(errs, fmt.Errorf("bus: add partitions to %s: %w %s", spec.Name, r.Err, r.ErrMessage))
		}
	}
	return errors.Join(errs...)
}

// livePartitions returns the partition count of each of names that
// exists. It asks the brokers directly: kadm's cached metadata can be
// seconds old, and a count read before a growth would hide a shrink.
func (c *Client) livePartitions(ctx context.Context, names []string) (map[string]int32, error) {
	req := kmsg.NewPtrMetadataRequest()
	for _, name := range names {
		t := kmsg.NewMetadataRequestTopic()
		t.Topic = kmsg.StringPtr(name)
		req.Topics = append(req.Topics, t)
	}
	resp, err := req.RequestWith(ctx, c.cl)
	if err != nil {
		return nil, fmt.Errorf("bus: describe topics: %w", err)
	}
	live := map[string]int32{}
	var errs []error
	for _, t := range resp.Topics {
		var name string
		if t.Topic != nil {
			name = *t.Topic
		}
		switch err := kerr.ErrorForCode(t.ErrorCode); {
		case errors.Is(err, kerr.UnknownTopicOrPartition):
		case err != nil:
			errs = append(errs, fmt.Errorf("bus: describe topic %s: %w", name, err))
		default:
			live[name] = int32(len(t.Partitions))
		}
	}
	return live, errors.Join(errs...)
}

// ErrShrinkPartitions is wrapped by EnsureTopicsWith's error when the
// configuration asks for fewer partitions than a topic has.
var ErrShrinkPartitions = errors.New("bus: fewer partitions than the topic has")

// createTopics creates specs, a topic that appeared meanwhile counting as
// created.
func (c *Client) createTopics(ctx context.Context, specs []TopicSpec) error {
	rf, err := c.replicationFactor(ctx)
	if err != nil {
		return err
	}
	var errs []error
	for _, spec := range specs {
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
