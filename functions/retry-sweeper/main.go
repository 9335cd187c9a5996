// Command retry-sweeper is the StreamOps retry-sweeper Lambda (EventBridge
// Scheduler, every minute): publish what was stored but not published,
// re-emit due task retries, route failed or stranded webhook events,
// re-enqueue failed partner deliveries.
package main

import (
	"context"
	"os"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"

	"github.com/streamops/streamops/internal/app"
	"github.com/streamops/streamops/internal/ingest"
	"github.com/streamops/streamops/internal/sweep"
	"github.com/streamops/streamops/internal/task"
	"github.com/streamops/streamops/internal/webhook"
)

func main() {
	ctx := context.Background()
	a := app.Must(app.Open(ctx, app.FromEnv("retry-sweeper")))
	router := app.Must(ingest.New(ingest.Config{
		Providers: app.Must(webhook.LoadProviders(os.Getenv("STREAMOPS_PROVIDERS_FILE"))),
		Secrets:   webhook.EnvSecrets{}, // routing stored events verifies nothing
		Store:     a.Store, Emitter: a.Emitter, Logger: a.Logger, Metrics: a.Metrics,
	}))
	retrier := app.Must(task.NewRetrier(a.Store, a.Emitter, a.Logger))
	sweeper := app.Must(sweep.New(sweep.Config{Store: a.Store, Publisher: a.Bus, Router: router, Tasks: retrier,
		Logger: a.Logger, Metrics: a.Metrics}))
	lambda.Start(func(ctx context.Context, _ events.EventBridgeEvent) error {
		_, err := sweeper.Run(ctx)
		return err
	})
}
