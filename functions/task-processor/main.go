// Command task-processor is the StreamOps task-processor Lambda, triggered
// by the MSK topic tasks: it runs each task.created (first attempts and
// retries) with the executor of its type and emits the task's lifecycle.
package main

import (
	"context"

	"github.com/streamops/streamops/internal/app"
	"github.com/streamops/streamops/internal/config"
	"github.com/streamops/streamops/internal/handlers/streamhandlers"
	"github.com/streamops/streamops/internal/stream"
	"github.com/streamops/streamops/internal/task"
	"github.com/streamops/streamops/internal/task/taskaws"
)

func main() {
	app.Start("task-processor", func(_ context.Context, a *app.App, cfg config.TaskProcessor) (any, error) {
		backends := task.BackendConfig{EmailSender: cfg.Backends.EmailSender, SESConfigurationSet: cfg.Backends.SESConfigurationSet,
			ExportBucket: cfg.Backends.ExportBucket, DataDir: cfg.Store.DataDir, OnLambda: cfg.Lambda.OnLambda(), Resolver: a.Vault}
		executors := app.Must(task.NewExecutors(app.Must(taskaws.Backends(backends)), a.Store))
		return streamhandlers.TaskProcessor(a, stream.ProcessorID(cfg.Processor.ID, cfg.Processor.LogStream), executors, nil)
	})
}
