// Command workflow-processor is the StreamOps workflow-processor Lambda,
// triggered by the MSK topic workflows: it runs the steps of every
// workflow.created and emits the workflow's lifecycle events.
package main

import (
	"context"

	"github.com/streamops/streamops/internal/app"
	"github.com/streamops/streamops/internal/config"
	"github.com/streamops/streamops/internal/handlers/streamhandlers"
	"github.com/streamops/streamops/internal/stream"
)

func main() {
	app.Start("workflow-processor", func(_ context.Context, a *app.App, cfg config.WorkflowProcessor) (any, error) {
		return streamhandlers.WorkflowProcessor(a, stream.ProcessorID(cfg.Processor.ID, cfg.Processor.LogStream), nil)
	})
}
