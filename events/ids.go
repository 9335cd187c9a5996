package events

import "github.com/google/uuid"

// Id prefixes of seed 003: every id is a prefix followed by a UUID.
const (
	EventIDPrefix    = "evt-"
	WorkflowIDPrefix = "wf-"
	TaskIDPrefix     = "task-"
)

// NewEventID returns a fresh eventId: "evt-" and a random (v4) UUID.
func NewEventID() string { return EventIDPrefix + uuid.NewString() }

// NewWorkflowID returns a fresh workflowId: "wf-" and a random (v4) UUID.
func NewWorkflowID() string { return WorkflowIDPrefix + uuid.NewString() }

// NewTaskID returns a fresh taskId: "task-" and a random (v4) UUID.
func NewTaskID() string { return TaskIDPrefix + uuid.NewString() }

// NewWebhookEventID returns a fresh webhook_events.event_id. Seed 004 types
// it as a plain UUID, so unlike the seed-003 ids it carries no prefix.
func NewWebhookEventID() string { return uuid.NewString() }
