// Command archiver is the StreamOps archiver Lambda (EventBridge Scheduler,
// daily): copy events near their TTL into events_archive.
package main

import (
	"context"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"

	"github.com/streamops/streamops/internal/app"
	"github.com/streamops/streamops/internal/archive"
)

func main() {
	a := app.Must(app.Open(context.Background(), app.FromEnv("archiver")))
	archiver := app.Must(archive.New(archive.Config{Store: a.Store, Logger: a.Logger, Metrics: a.Metrics}))
	lambda.Start(func(ctx context.Context, _ events.EventBridgeEvent) error {
		_, err := archiver.Run(ctx)
		return err
	})
}
