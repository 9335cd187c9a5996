package local

import (
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/streamops/streamops/internal/backoff"
	"github.com/streamops/streamops/internal/task"
	"github.com/streamops/streamops/internal/workflow"
)

// Option adjusts what Start builds beyond Config: the hooks tests use to
// make failures and retries happen on cue. The stack `make run` starts
// uses none of them.
type Option func(*options)

type options struct {
	// spans receives every function's spans (WithSpanExporter).
	spans       sdktrace.SpanExporter
	executors   task.Executors
	taskBackoff backoff.Policy
	batchRetry  backoff.Policy
	steps       *workflow.Registry
}

// WithSteps replaces the workflow-processor's steps of the given names
// (the others stay the built-in ones): a step that fails on cue. Default
// none: workflow.BuiltinSteps().
func WithSteps(steps map[string]workflow.StepFunc) Option {
	return func(o *options) {
		if o.steps == nil {
			o.steps = workflow.BuiltinSteps()
		}
		for name, fn := range steps {
			o.steps.Register(name, fn)
		}
	}
}

// WithExecutors replaces the task-processor's executors of the given task
// types (the others stay as task.NewExecutors builds them). Default none:
// email goes to .eml files and exports and reports to files under the
// data directory.
func WithExecutors(x task.Executors) Option {
	return func(o *options) {
		if o.executors == nil {
			o.executors = task.Executors{}
		}
		for typ, ex := range x {
			o.executors[typ] = ex
		}
	}
}

// WithTaskBackoff sets the delay before a failed task's retries. Default
// task.DefaultBackoff (30 s doubling, capped at an hour, full jitter).
func WithTaskBackoff(p backoff.Policy) Option {
	return func(o *options) { o.taskBackoff = p }
}

// WithBatchRetry sets the delay before a failed MSK batch is delivered
// again. Default DefaultBatchRetry.
func WithBatchRetry(p backoff.Policy) Option {
	return func(o *options) { o.batchRetry = p }
}

// WithSpanExporter records every function's spans and hands them to exp,
// whatever STREAMOPS_TRACING says (tests).
func WithSpanExporter(exp sdktrace.SpanExporter) Option {
	return func(o *options) { o.spans = exp }
}
