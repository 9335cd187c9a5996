// Command workflow-processor is the StreamOps workflow-processor Lambda,
// triggered by the MSK topic workflows: it runs the steps of every
// workflow.created and emits the workflow's lifecycle events.
package main

import (
	"context"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/streamops/streamops/internal/app"
	"github.com/streamops/streamops/internal/wire/streamwire"
)

func main() {
	a := app.Must(app.Open(context.Background(), app.FromEnv("workflow-processor")))
	lambda.Start(app.Must(streamwire.WorkflowProcessor(a)))
}
