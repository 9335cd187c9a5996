// Command workflow-processor is the StreamOps workflow-processor Lambda,
// triggered by the MSK topic workflows: it runs the steps of every
// workflow.created and emits the workflow's lifecycle events.
package main

import (
	"context"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/streamops/streamops/internal/app"
	"github.com/streamops/streamops/internal/stream"
	"github.com/streamops/streamops/internal/workflow"
)

func main() {
	ctx := context.Background()
	a := app.Must(app.Open(ctx, app.FromEnv("workflow-processor")))
	svc := app.Must(workflow.New(workflow.Config{Store: a.Store, Emitter: a.Emitter,
		ProcessorID: stream.ProcessorIDFromEnv(), Logger: a.Logger, Metrics: a.Metrics}))
	proc := app.Must(stream.New(stream.Config{Name: a.Name, Handler: svc, DeadLetters: a.Store,
		Publisher: a.Bus, Logger: a.Logger, Metrics: a.Metrics}))
	lambda.Start(proc.HandleKafkaEvent)
}
