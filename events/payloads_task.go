package events

import (
	"encoding/json"
	"slices"
)

// TaskType says what a task does; it selects the handler and the shape of
// the task's data and result.
type TaskType string

// The task types of seed 003.
const (
	TaskEmailNotification TaskType = "email_notification"
	TaskDataExport        TaskType = "data_export"
	TaskReportGeneration  TaskType = "report_generation"
)

// TaskTypes are the task types the task processor has an executor for, in
// seed 003's order: the one list of them. Submission, webhook routes, the
// produce-mode schema (schemas/mode/produce.json) and the OpenAPI document
// take their task types from here or are tested against it.
var TaskTypes = []TaskType{TaskEmailNotification, TaskDataExport, TaskReportGeneration}

// Known reports whether t is one of TaskTypes.
func (t TaskType) Known() bool { return slices.Contains(TaskTypes, t) }

// TaskTypeNames returns TaskTypes as strings, in order.
func TaskTypeNames() []string { return names(TaskTypes) }

// TaskCreatedPayload is the payload of task.created: a task submitted
// through POST /api/tasks.
type TaskCreatedPayload struct {
	TaskID string   `json:"taskId"`
	Type   TaskType `json:"type"`
	// Data is the task's input, a JSON object whose shape depends on Type.
	Data       json.RawMessage `json:"data"`
	RetryCount int             `json:"retryCount"` // attempts so far, from 0
	MaxRetries int             `json:"maxRetries"` // before the task is dead-lettered
	CreatedAt  Time            `json:"createdAt"`
}

// EventType is TaskCreated.
func (TaskCreatedPayload) EventType() Type { return TaskCreated }

// TaskProcessingPayload is the payload of task.processing: the processor
// started attempt RetryCount of a task.
type TaskProcessingPayload struct {
	TaskID     string `json:"taskId"`
	StartedAt  Time   `json:"startedAt"`
	RetryCount int    `json:"retryCount"`
}

// EventType is TaskProcessing.
func (TaskProcessingPayload) EventType() Type { return TaskProcessing }

// TaskCompletedPayload is the payload of task.completed.
type TaskCompletedPayload struct {
	TaskID      string `json:"taskId"`
	CompletedAt Time   `json:"completedAt"`
	Duration    int64  `json:"duration"` // milliseconds
	// Result is the task's output, a JSON object whose shape depends on the
	// task type (e.g. {"emailSent": true, "messageId": "msg-123456"}).
	Result json.RawMessage `json:"result"`
}

// EventType is TaskCompleted.
func (TaskCompletedPayload) EventType() Type { return TaskCompleted }

// TaskFailedPayload is the payload of task.failed: an attempt failed and
// the task will be retried at NextRetryAt.
type TaskFailedPayload struct {
	TaskID      string    `json:"taskId"`
	FailedAt    Time      `json:"failedAt"`
	RetryCount  int       `json:"retryCount"`
	MaxRetries  int       `json:"maxRetries"`
	Error       TaskError `json:"error"`
	NextRetryAt Time      `json:"nextRetryAt"`
}

// EventType is TaskFailed.
func (TaskFailedPayload) EventType() Type { return TaskFailed }

// TaskError is the error of a failed task attempt.
type TaskError struct {
	Code      string `json:"code"` // e.g. "SMTP_ERROR"
	Message   string `json:"message"`
	Retryable bool   `json:"retryable"`
}

// TaskDeadLetterPayload is the payload of task.dead_letter: the task failed
// for good after MaxRetries retries.
type TaskDeadLetterPayload struct {
	TaskID         string        `json:"taskId"`
	OriginalEvent  OriginalEvent `json:"originalEvent"`
	RetryCount     int           `json:"retryCount"`
	MaxRetries     int           `json:"maxRetries"`
	FinalError     FinalError    `json:"finalError"`
	DeadLetteredAt Time          `json:"deadLetteredAt"`
}

// EventType is TaskDeadLetter.
func (TaskDeadLetterPayload) EventType() Type { return TaskDeadLetter }

// OriginalEvent is the task event whose processing failed, carried in a
// dead letter so the task can be inspected and resubmitted.
type OriginalEvent struct {
	EventType Type            `json:"eventType"`
	Payload   json.RawMessage `json:"payload"`
}

// FinalError is the error of a dead-lettered task's last attempt.
type FinalError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Stack   string `json:"stack"`
}
