package provision

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/cfn"

	"github.com/streamops/streamops/internal/bus"
)

// TopicAdmin makes the topics of bus.TopicsWith(p) exist with their
// partition counts, growing a topic that has fewer and refusing one that
// has more; *bus.Client is one.
type TopicAdmin interface {
	EnsureTopicsWith(ctx context.Context, p bus.PartitionCounts) error
}

// TopicsPhysicalID is the physical id of the topics resource. It never
// changes, so an update never makes CloudFormation "replace" the resource
// and send a Delete for the old one.
const TopicsPhysicalID = "streamops-kafka-topics"

// PropertyTopics is the resource property listing the topic names the
// stack expects (infra/names.go). The handler checks it against
// bus.Topics, so a stack and a build that disagree on the topics fail the
// deploy instead of leaving a consumer on a topic nobody created.
const PropertyTopics = "Topics"

// PropertyPartitions is the resource property with the topics' partition
// counts, written as bus.ParsePartitionCounts reads them (the CDK context
// kafkaPartitions). A property, not the function's environment, so that a
// new count is a change of the resource and CloudFormation sends Update.
// Absent: Topics.Partitions.
const PropertyPartitions = "Partitions"

// DefaultReplyMargin is Topics.ReplyMargin's default.
const DefaultReplyMargin = 10 * time.Second

// Topics is the handler of the stack's Custom::KafkaTopics resource:
//   - Create and Update ensure every topic of bus.Topics exists with the
//     partition counts of the Partitions property (seed 003's retention);
//     a live topic with fewer partitions grows to its count (adding
//     partitions moves keys: docs/deploy.md), one with more fails the
//     request and nothing is changed (Kafka cannot remove partitions).
//     Nothing else of a live topic is touched, so both are idempotent.
//   - Delete answers SUCCESS and touches nothing: the topics hold the
//     events, and deleting a stack must not delete data (the template also
//     retains the resource, so CloudFormation does not even ask).
type Topics struct {
	// Admin creates the topics.
	Admin TopicAdmin
	// Partitions are the counts used when the request has no Partitions
	// property (a stack from before it; STREAMOPS_KAFKA_PARTITIONS).
	// Default every topic at bus.DefaultPartitions.
	Partitions bus.PartitionCounts
	// ReplyMargin is kept free before the invocation's deadline: the work
	// is cut off that much earlier, so the handler still reports FAILED to
	// CloudFormation instead of being killed and leaving the stack waiting
	// an hour for an answer. Default DefaultReplyMargin (10 s).
	ReplyMargin time.Duration
}

// Handle is a cfn.CustomResourceFunction; wrap it with cfn.LambdaWrap.
func (t Topics) Handle(ctx context.Context, ev cfn.Event) (physicalID string, data map[string]any, err error) {
	physicalID = ev.PhysicalResourceID
	if physicalID == "" {
		physicalID = TopicsPhysicalID
	}
	names := topicNames()
	data = map[string]any{PropertyTopics: strings.Join(names, ",")}
	if ev.RequestType == cfn.RequestDelete {
		return physicalID, data, nil
	}
	if err := checkRequested(ev.ResourceProperties[PropertyTopics], names); err != nil {
		return physicalID, nil, err
	}
	partitions, err := t.requestedPartitions(ev.ResourceProperties[PropertyPartitions])
	if err != nil {
		return physicalID, nil, err
	}
	data[PropertyPartitions] = partitions.String()
	margin := t.ReplyMargin
	if margin == 0 {
		margin = DefaultReplyMargin
	}
	if deadline, ok := ctx.Deadline(); ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, deadline.Add(-margin))
		defer cancel()
	}
	if err := t.Admin.EnsureTopicsWith(ctx, partitions); err != nil {
		return physicalID, nil, fmt.Errorf("provision: %s topics: %w", strings.ToLower(string(ev.RequestType)), err)
	}
	return physicalID, data, nil
}

// requestedPartitions reads the Partitions property (a string, as
// CloudFormation passes every scalar), or Topics.Partitions without one.
func (t Topics) requestedPartitions(prop any) (bus.PartitionCounts, error) {
	if prop == nil {
		return t.Partitions, t.Partitions.Validate()
	}
	s, ok := prop.(string)
	if !ok {
		return bus.PartitionCounts{}, fmt.Errorf("provision: property %s: want a string such as \"workflows=12,tasks=6\", got %T", PropertyPartitions, prop)
	}
	p, err := bus.ParsePartitionCounts(s)
	if err != nil {
		return bus.PartitionCounts{}, fmt.Errorf("provision: property %s: %w", PropertyPartitions, err)
	}
	return p, nil
}

// topicNames are the names of bus.Topics, in table order.
func topicNames() []string {
	var names []string
	for _, spec := range bus.Topics() {
		names = append(names, spec.Name)
	}
	return names
}

// checkRequested compares the Topics property (a list of strings, as
// CloudFormation passes it) with the table. An absent property is
// accepted: the table is the truth.
func checkRequested(prop any, names []string) error {
	if prop == nil {
		return nil
	}
	list, ok := prop.([]any)
	if !ok {
		return fmt.Errorf("provision: property %s: want a list of topic names, got %T", PropertyTopics, prop)
	}
	var requested []string
	for _, v := range list {
		s, ok := v.(string)
		if !ok {
			return fmt.Errorf("provision: property %s: want topic names, got %T", PropertyTopics, v)
		}
		requested = append(requested, s)
	}
	want := slices.Sorted(slices.Values(names))
	if got := slices.Sorted(slices.Values(requested)); !slices.Equal(got, want) {
		return fmt.Errorf("provision: the stack asks for topics %v, this build creates %v: deploy a stack and functions built from the same commit", got, want)
	}
	return nil
}
