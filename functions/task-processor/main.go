// Command task-processor is the StreamOps task-processor Lambda, triggered
// by the MSK topic tasks: it runs each task.created (first attempts and
// retries) with the executor of its type and emits the task's lifecycle.
package main

import (
	"context"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/streamops/streamops/internal/app"
	"github.com/streamops/streamops/internal/task"
	"github.com/streamops/streamops/internal/task/taskaws"
	"github.com/streamops/streamops/internal/wire/streamwire"
)

func main() {
	ctx := context.Background()
	a := app.Must(app.Open(ctx, app.FromEnv("task-processor")))
	executors := app.Must(task.NewExecutors(app.Must(taskaws.Backends(task.BackendConfigFromEnv())), a.Store))
	lambda.Start(app.Must(streamwire.TaskProcessor(a, executors, nil)))
}
