package streamhandlers

import (
	"context"

	lambdaevents "github.com/aws/aws-lambda-go/events"

	"github.com/streamops/streamops/internal/app"
	"github.com/streamops/streamops/internal/backoff"
	"github.com/streamops/streamops/internal/stream"
	"github.com/streamops/streamops/internal/task"
	"github.com/streamops/streamops/internal/workflow"
)

// KafkaHandler handles one MSK batch (workflow-processor, task-processor).
type KafkaHandler = func(context.Context, lambdaevents.KafkaEvent) error

// WorkflowProcessor is the workflow-processor function, running the
// steps of steps (nil: workflow.BuiltinSteps()), stamping processorID on
// the events it emits.
func WorkflowProcessor(a *app.App, processorID string, steps *workflow.Registry) (KafkaHandler, error) {
	svc, err := workflow.New(workflow.Config{Store: a.Store, Steps: steps, Runtime: runtime(a, processorID)})
	if err != nil {
		return nil, err
	}
	return processor(a, svc)
}

// TaskProcessor is the task-processor function, running tasks with
// executors and spacing retries with retries (nil: task.DefaultBackoff),
// stamping processorID on the events it emits.
func TaskProcessor(a *app.App, processorID string, executors task.Executors, retries backoff.Policy) (KafkaHandler, error) {
	svc, err := task.New(task.Config{Store: a.Store, Executors: executors, Backoff: retries, Runtime: runtime(a, processorID)})
	if err != nil {
		return nil, err
	}
	return processor(a, svc)
}

// runtime is what every processor's domain service emits and reports with.
func runtime(a *app.App, processorID string) stream.Runtime {
	return stream.Runtime{Emitter: a.Emitter, ProcessorID: processorID, Logger: a.Logger, Metrics: a.Metrics}
}

// processor puts a stream processor, dead-lettering poison records, in
// front of h.
func processor(a *app.App, h stream.Handler) (KafkaHandler, error) {
	cfg := stream.Config{Name: a.Name, Handler: h, DeadLetters: a.Store,
		Publisher: a.Bus, Logger: a.Logger, Metrics: a.Metrics, EventLog: a.EventLog}
	if a.Vault != nil {
		cfg.Personal = a.Vault // another producer's records are protected as they come in
	}
	proc, err := stream.New(cfg)
	if err != nil {
		return nil, err
	}
	return proc.HandleKafkaEvent, nil
}
