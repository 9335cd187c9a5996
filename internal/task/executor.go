package task

import (
	"context"
	"encoding/json"
	"time"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/fault"
)

// Executor runs one attempt of a task of its type.
type Executor interface {
	// Execute runs the attempt and returns the task's result (the result
	// object of task.completed). A returned *fault.Error says whether a retry can
	// help; an untyped error is retried.
	Execute(ctx context.Context, a Attempt) (Result, error)
}

// ExecutorFunc adapts a function to Executor.
type ExecutorFunc func(ctx context.Context, a Attempt) (Result, error)

// Execute calls f.
func (f ExecutorFunc) Execute(ctx context.Context, a Attempt) (Result, error) { return f(ctx, a) }

// Executors maps task types to their executors.
type Executors map[events.TaskType]Executor

// executorBuilder builds a task type's executor on the backends and the
// store.
type executorBuilder func(b Backends, st ReadStore) Executor

// builders are the executor builders by task type, each registered by its
// executor's file, so adding a task type is its file and its line in
// events.TaskTypes. NewExecutors builds one per type of events.TaskTypes.
var builders = map[events.TaskType]executorBuilder{}

// registerExecutor adds the builder of type t's executor; an executor's
// file calls it from init.
func registerExecutor(t events.TaskType, build executorBuilder) {
	if _, dup := builders[t]; dup {
		panic("task: two executors registered for task type " + string(t))
	}
	builders[t] = build
}

// Attempt is one attempt of a task.
type Attempt struct {
	TaskID string
	Type   events.TaskType
	// Data is the task's input object; its shape depends on Type.
	Data json.RawMessage
	// RetryCount is the attempt's number, from 0; MaxRetries the retries
	// allowed after the first attempt.
	RetryCount int
	MaxRetries int
	CreatedAt  time.Time
	// StartedAt is when the attempt started, by the processor's clock.
	StartedAt     time.Time
	CorrelationID string
}

// Result is a task's result object.
type Result map[string]any

// decodeData unmarshals an attempt's data into v, or fails permanently.
func decodeData(a Attempt, v any) error {
	if err := json.Unmarshal(a.Data, v); err != nil {
		return fault.Permanent(CodeInvalidData, "%s data: %v", a.Type, err)
	}
	return nil
}

// requireField fails permanently when a required data field is empty.
func requireField(a Attempt, name, value string) error {
	if value == "" {
		return fault.Permanent(CodeInvalidData, "%s data.%s is required", a.Type, name)
	}
	return nil
}
