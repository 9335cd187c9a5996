package events

import (
	"encoding/json"
	"fmt"
	"strings"
)

// SchemaVersion is the envelope schema version written to every event and to
// the Kafka `schema-version` header (seed 003, "Schema Evolution").
const SchemaVersion = "1.0.0"

// Type is an event type identifier such as "workflow.created".
type Type string

// The event types of seed 003, plus webhook.received for the ingest path.
const (
	WorkflowCreated       Type = "workflow.created"
	WorkflowProcessing    Type = "workflow.processing"
	WorkflowStepCompleted Type = "workflow.step.completed"
	WorkflowCompleted     Type = "workflow.completed"
	WorkflowFailed        Type = "workflow.failed"

	TaskCreated    Type = "task.created"
	TaskProcessing Type = "task.processing"
	TaskCompleted  Type = "task.completed"
	TaskFailed     Type = "task.failed"
	TaskDeadLetter Type = "task.dead_letter"

	WebhookReceived Type = "webhook.received"

	// The operational events of partner delivery (issue 27), on
	// TopicOperations keyed by partnerId: what an operator alarms on.
	PartnerPaused        Type = "partner.paused"
	PartnerResumed       Type = "partner.resumed"
	PartnerBreakerOpened Type = "partner.breaker.opened"
	PartnerBreakerClosed Type = "partner.breaker.closed"
	PartnerThrottled     Type = "partner.throttled"
	DeliveryDeadLettered Type = "delivery.dead_lettered"
	// The auto-disable (issue 35): a partner whose every delivery fails
	// is warned about at 50 and 90 % of the disable period, then
	// disabled; an operator enables it again.
	PartnerFailing  Type = "partner.failing"
	PartnerDisabled Type = "partner.disabled"
	PartnerEnabled  Type = "partner.enabled"
	// SubjectErased: an operator erased a data subject's personal data
	// (issue 34), on TopicOperations.
	SubjectErased Type = "subject.erased"
)

// Kafka topics of seed 003. Dead letters go to the topic name plus DLQSuffix.
const (
	TopicWorkflows = "workflows"
	TopicTasks     = "tasks"
	DLQSuffix      = ".dlq"
	// TopicOperations carries the operational events (partner.*,
	// delivery.dead_lettered), keyed by partnerId: 3 partitions, 7 days
	// retention. Not in seed 003.
	TopicOperations = "operations"
)

// DLQTopic is the dead-letter topic of topic: topic + DLQSuffix. A
// dead-letter topic is its own dead-letter topic, so a replay from it that
// fails again lands back there rather than in a topic nobody created.
func DLQTopic(topic string) string {
	if strings.HasSuffix(topic, DLQSuffix) {
		return topic
	}
	return topic + DLQSuffix
}

// Types lists every known event type in catalog order.
var Types = []Type{
	WorkflowCreated, WorkflowProcessing, WorkflowStepCompleted, WorkflowCompleted, WorkflowFailed,
	TaskCreated, TaskProcessing, TaskCompleted, TaskFailed, TaskDeadLetter,
	WebhookReceived,
	PartnerPaused, PartnerResumed, PartnerBreakerOpened, PartnerBreakerClosed, PartnerThrottled, DeliveryDeadLettered,
	PartnerFailing, PartnerDisabled, PartnerEnabled,
	SubjectErased,
}

// OperationsTypes are the event types of TopicOperations, in catalog order.
var OperationsTypes = []Type{PartnerPaused, PartnerResumed, PartnerBreakerOpened, PartnerBreakerClosed, PartnerThrottled, DeliveryDeadLettered,
	PartnerFailing, PartnerDisabled, PartnerEnabled, SubjectErased}

// TypeNames returns Types as strings, in order.
func TypeNames() []string { return names(Types) }

// names returns a list of one of the package's string kinds as strings.
func names[T ~string](list []T) []string {
	out := make([]string, len(list))
	for i, v := range list {
		out[i] = string(v)
	}
	return out
}

// Known reports whether t is an event type of the catalog.
func (t Type) Known() bool {
	for _, k := range Types {
		if k == t {
			return true
		}
	}
	return false
}

// Topic is the Kafka topic that carries events of type t: "workflows" for
// workflow.*, "tasks" for task.*, "operations" for the operational events
// (OperationsTypes). webhook.received is history only (it is stored in the
// events collection, never published), so its topic is "".
func (t Type) Topic() string {
	switch t {
	case WorkflowCreated, WorkflowProcessing, WorkflowStepCompleted, WorkflowCompleted, WorkflowFailed:
		return TopicWorkflows
	case TaskCreated, TaskProcessing, TaskCompleted, TaskFailed, TaskDeadLetter:
		return TopicTasks
	case PartnerPaused, PartnerResumed, PartnerBreakerOpened, PartnerBreakerClosed, PartnerThrottled, DeliveryDeadLettered,
		PartnerFailing, PartnerDisabled, PartnerEnabled, SubjectErased:
		return TopicOperations
	}
	return ""
}

// Envelope is the seed-003 base event structure every topic carries:
// {eventType, eventId, timestamp, payload, metadata} plus schemaVersion.
// Payload stays raw so an envelope can be routed, stored and re-published
// byte-for-byte without knowing its type; PayloadAs gives the typed view.
// Fields a newer producer added to the envelope are kept in Extra.
type Envelope struct {
	EventType     Type            `json:"eventType"`
	EventID       string          `json:"eventId"`
	Timestamp     Time            `json:"timestamp"`
	SchemaVersion string          `json:"schemaVersion,omitempty"`
	Payload       json.RawMessage `json:"payload"`
	Metadata      *Metadata       `json:"metadata,omitempty"`
	// Extra is the envelope's fields this version does not name, written
	// after the others; only a consumed event has them (Consumed).
	Extra Extra `json:"-"`

	// encoding is the envelope's JSON as New marshalled it to validate
	// it, kept for the producer (Encoding). Not part of the event.
	encoding *encoding
}

// plainEnvelope is Envelope without its JSON methods.
type plainEnvelope Envelope

// MarshalJSON encodes the envelope's fields, then its Extra members.
func (e Envelope) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(plainEnvelope(e))
	if err != nil {
		return nil, err
	}
	return e.Extra.appendTo(b), nil
}

// UnmarshalJSON decodes the envelope's fields by their exact names and
// keeps the others in Extra. It decodes in place; on an error e is zero.
func (e *Envelope) UnmarshalJSON(b []byte) error {
	*e = Envelope{}
	extra, err := decodeObject(b, "envelope", (*plainEnvelope)(e), e.fields()...)
	if err != nil {
		*e = Envelope{}
		return err
	}
	e.Extra = extra
	return nil
}

// fields are the envelope's members by their JSON names.
func (e *Envelope) fields() []field {
	return []field{{"eventType", &e.EventType}, {"eventId", &e.EventID}, {"timestamp", &e.Timestamp},
		{"schemaVersion", &e.SchemaVersion}, {"payload", &e.Payload}, {"metadata", &e.Metadata}}
}

// DecodePayload unmarshals the payload into v.
func (e Envelope) DecodePayload(v any) error {
	if err := json.Unmarshal(e.Payload, v); err != nil {
		return fmt.Errorf("events: decode %s payload of %s: %w", e.EventType, e.EventID, err)
	}
	return nil
}

// AggregateID is the id of the thing the event belongs to: the payload's
// workflowId, taskId, (for webhook.received) webhookEventId, (for the
// partner operational events) partnerId or (for subject.erased, an
// erasure of its own) receiptId. It is the Kafka partition key and the
// events collection's aggregate_id. It is "" when the payload carries none
// of them.
func (e Envelope) AggregateID() string {
	var ids struct {
		WorkflowID     string `json:"workflowId"`
		TaskID         string `json:"taskId"`
		WebhookEventID string `json:"webhookEventId"`
		PartnerID      string `json:"partnerId"`
		ReceiptID      string `json:"receiptId"`
	}
	if json.Unmarshal(e.Payload, &ids) != nil {
		return ""
	}
	return pickAggregateID([len(AggregateIDFields)]string{ids.WorkflowID, ids.TaskID, ids.WebhookEventID, ids.PartnerID, ids.ReceiptID})
}

// AggregateIDFields are the payload fields AggregateID reads, in the
// order it prefers them: the first non-empty one.
var AggregateIDFields = [...]string{"workflowId", "taskId", "webhookEventId", "partnerId", "receiptId"}

// pickAggregateID is AggregateID's choice among the values of
// AggregateIDFields.
func pickAggregateID(ids [len(AggregateIDFields)]string) string {
	for _, id := range ids {
		if id != "" {
			return id
		}
	}
	return ""
}
