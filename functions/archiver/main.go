// Command archiver is the StreamOps archiver Lambda (EventBridge Scheduler,
// daily): copy events near their TTL into events_archive.
package main

import (
	"context"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/streamops/streamops/internal/app"
	"github.com/streamops/streamops/internal/wire"
)

func main() {
	a := app.Must(app.Open(context.Background(), app.FromEnv("archiver")))
	lambda.Start(app.Must(wire.Archiver(a)))
}
