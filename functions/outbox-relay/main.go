// Command outbox-relay is the StreamOps outbox relay Lambda (EventBridge
// Scheduler, every minute): claim due outbox entries, deliver, settle.
package main

import (
	"context"
	"os"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/streamops/streamops/internal/app"
	"github.com/streamops/streamops/internal/outbox"
	"github.com/streamops/streamops/internal/wire"
)

func main() {
	ctx := context.Background()
	a := app.Must(app.Open(ctx, app.FromEnv("outbox-relay")))
	partners := app.Must(outbox.LoadPartners(os.Getenv("STREAMOPS_PARTNERS_FILE")))
	lambda.Start(app.Must(wire.OutboxRelay(a, partners, app.Must(app.Secrets(ctx, app.PartnerSecrets)))))
}
