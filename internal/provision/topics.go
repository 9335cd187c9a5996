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

// TopicAdmin creates the topics of bus.Topics that do not exist yet and
// leaves existing ones as they are; *bus.Client is one.
type TopicAdmin interface {
	EnsureTopics(ctx context.Context) error
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

// DefaultReplyMargin is Topics.ReplyMargin's default.
const DefaultReplyMargin = 10 * time.Second

// Topics is the handler of the stack's Custom::KafkaTopics resource:
//   - Create and Update ensure every topic of bus.Topics exists (seed 003's
//     partitions and retention); topics that exist are left untouched, so
//     both are idempotent and a redeploy never alters a live topic.
//   - Delete answers SUCCESS and touches nothing: the topics hold the
//     events, and deleting a stack must not delete data (the template also
//     retains the resource, so CloudFormation does not even ask).
type Topics struct {
	// Admin creates the topics.
	Admin TopicAdmin
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
	margin := t.ReplyMargin
	if margin == 0 {
		margin = DefaultReplyMargin
	}
	if deadline, ok := ctx.Deadline(); ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, deadline.Add(-margin))
		defer cancel()
	}
	if err := t.Admin.EnsureTopics(ctx); err != nil {
		return physicalID, nil, fmt.Errorf("provision: %s topics: %w", strings.ToLower(string(ev.RequestType)), err)
	}
	return physicalID, data, nil
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
