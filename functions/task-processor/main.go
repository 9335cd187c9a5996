// Command task-processor is the StreamOps task-processor Lambda, triggered
// by the MSK topic tasks: it runs each task.created (first attempts and
// retries) with the executor of its type and emits the task's lifecycle.
package main

import (
	"context"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/streamops/streamops/internal/app"
	"github.com/streamops/streamops/internal/stream"
	"github.com/streamops/streamops/internal/task"
)

func main() {
	ctx := context.Background()
	a := app.Must(app.Open(ctx, app.FromEnv("task-processor")))
	executors := app.Must(task.NewExecutors(ctx, task.BackendConfigFromEnv(), a.Store))
	svc := app.Must(task.New(task.Config{Store: a.Store, Emitter: a.Emitter, Executors: executors,
		ProcessorID: stream.ProcessorIDFromEnv(), Logger: a.Logger, Metrics: a.Metrics}))
	proc := app.Must(stream.New(stream.Config{Name: a.Name, Handler: svc, DeadLetters: a.Store,
		Publisher: a.Bus, Logger: a.Logger, Metrics: a.Metrics}))
	lambda.Start(proc.HandleKafkaEvent)
}
