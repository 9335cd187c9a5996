package events

import (
	"strings"

	"github.com/google/uuid"
)

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

// idNamespace scopes the name-based (v5) UUIDs of DeriveID.
var idNamespace = uuid.MustParse("6f1c3e2a-54b7-4d0e-9a51-2c8f0d7b9e13")

// DeriveID returns prefix followed by a name-based UUID of parts: the same
// parts always give the same id. Ids derived from a natural key make a
// retried write collide with the first instead of creating a twin, e.g.
// DeriveID(EventIDPrefix, webhookEventID, "workflow.created").
func DeriveID(prefix string, parts ...string) string {
	return prefix + uuid.NewSHA1(idNamespace, []byte(strings.Join(parts, "\x00"))).String()
}
