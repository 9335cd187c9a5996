package events

import (
	"encoding/json"
	"slices"
)

// Priority is the execution priority of a workflow.
type Priority string

// The priorities of seed 003.
const (
	PriorityLow    Priority = "low"
	PriorityMedium Priority = "medium"
	PriorityHigh   Priority = "high"
)

// Steps are the workflow step names the workflow processor implements, in
// their usual order. A workflow (submitted over the API or started by a
// webhook route) may use no others.
var Steps = []string{"validate", "transform", "store", "notify", "deliver"}

// KnownStep reports whether name is one of Steps.
func KnownStep(name string) bool { return slices.Contains(Steps, name) }

// WorkflowCreatedPayload is the payload of workflow.created: a workflow
// submitted through POST /api/workflows.
type WorkflowCreatedPayload struct {
	WorkflowID string   `json:"workflowId"`
	Name       string   `json:"name"`
	Steps      []string `json:"steps"` // in execution order
	Priority   Priority `json:"priority"`
	CreatedAt  Time     `json:"createdAt"`
	// Input is the workflow's input (records the steps work on), when the
	// submitter gave one. Not in seed 003's list; the schema allows it as an
	// additional payload field.
	Input json.RawMessage `json:"input,omitempty"`
}

// EventType is WorkflowCreated.
func (WorkflowCreatedPayload) EventType() Type { return WorkflowCreated }

// WorkflowProcessingPayload is the payload of workflow.processing: the
// processor started (or resumed) a workflow at CurrentStep.
type WorkflowProcessingPayload struct {
	WorkflowID       string `json:"workflowId"`
	StartedAt        Time   `json:"startedAt"`
	CurrentStep      string `json:"currentStep"`
	CurrentStepIndex int    `json:"currentStepIndex"`
}

// EventType is WorkflowProcessing.
func (WorkflowProcessingPayload) EventType() Type { return WorkflowProcessing }

// WorkflowStepCompletedPayload is the payload of workflow.step.completed.
type WorkflowStepCompletedPayload struct {
	WorkflowID  string     `json:"workflowId"`
	StepName    string     `json:"stepName"`
	StepIndex   int        `json:"stepIndex"`
	CompletedAt Time       `json:"completedAt"`
	Duration    int64      `json:"duration"` // milliseconds
	Result      StepResult `json:"result"`
}

// EventType is WorkflowStepCompleted.
func (WorkflowStepCompletedPayload) EventType() Type { return WorkflowStepCompleted }

// WorkflowCompletedPayload is the payload of workflow.completed: every step
// finished.
type WorkflowCompletedPayload struct {
	WorkflowID string `json:"workflowId"`
	// Name is the workflow's name (workflow.created's), so a partner can
	// subscribe to the completions of one workflow; not in seed 003's
	// example, left out when unknown.
	Name           string          `json:"name,omitempty"`
	CompletedAt    Time            `json:"completedAt"`
	Duration       int64           `json:"duration"` // milliseconds, whole workflow
	StepsCompleted int             `json:"stepsCompleted"`
	Summary        WorkflowSummary `json:"summary"`
}

// EventType is WorkflowCompleted.
func (WorkflowCompletedPayload) EventType() Type { return WorkflowCompleted }

// WorkflowSummary totals the records of a completed workflow.
type WorkflowSummary struct {
	TotalRecords      int `json:"totalRecords"`
	SuccessfulRecords int `json:"successfulRecords"`
	FailedRecords     int `json:"failedRecords"`
}

// WorkflowFailedPayload is the payload of workflow.failed: the workflow hit
// an unrecoverable error in FailedStep.
type WorkflowFailedPayload struct {
	WorkflowID string `json:"workflowId"`
	// Name is the workflow's name, as in WorkflowCompletedPayload.
	Name            string        `json:"name,omitempty"`
	FailedAt        Time          `json:"failedAt"`
	FailedStep      string        `json:"failedStep"`
	FailedStepIndex int           `json:"failedStepIndex"`
	Error           WorkflowError `json:"error"`
}

// EventType is WorkflowFailed.
func (WorkflowFailedPayload) EventType() Type { return WorkflowFailed }

// WorkflowError is the error that failed a workflow.
type WorkflowError struct {
	Code    string `json:"code"` // e.g. "TRANSFORM_ERROR"
	Message string `json:"message"`
	Stack   string `json:"stack"`
}
