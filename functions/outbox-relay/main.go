// Command outbox-relay is the StreamOps outbox relay Lambda (EventBridge
// Scheduler, every minute): claim due outbox entries, deliver, settle.
package main

import (
	"context"
	"os"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"

	"github.com/streamops/streamops/internal/app"
	"github.com/streamops/streamops/internal/outbox"
)

func main() {
	ctx := context.Background()
	a := app.Must(app.Open(ctx, app.FromEnv("outbox-relay")))
	relay := app.Must(outbox.New(outbox.Config{
		Store: a.Store, Kafka: outbox.KafkaDeliverer{Publisher: a.Bus},
		Partners:         app.Must(outbox.LoadPartners(os.Getenv("STREAMOPS_PARTNERS_FILE"))),
		PartnerDeliverer: outbox.PartnerDeliverer{Secrets: app.Must(app.Secrets(ctx, app.PartnerSecrets))},
		Logger:           a.Logger, Metrics: a.Metrics,
	}))
	lambda.Start(func(ctx context.Context, _ events.EventBridgeEvent) error {
		_, err := relay.Run(ctx)
		return err
	})
}
