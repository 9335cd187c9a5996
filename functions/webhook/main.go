// Command webhook is the StreamOps webhook Lambda behind API Gateway's
// POST /webhooks/{provider}: verify, dedupe, scrub, store, route, publish.
package main

import (
	"context"
	"os"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/streamops/streamops/internal/apigw"
	"github.com/streamops/streamops/internal/app"
	"github.com/streamops/streamops/internal/provider"
	"github.com/streamops/streamops/internal/wire"
)

func main() {
	ctx := context.Background()
	a := app.Must(app.Open(ctx, app.FromEnv("webhook")))
	providers := app.Must(provider.LoadProviders(os.Getenv("STREAMOPS_PROVIDERS_FILE")))
	handler := app.Must(wire.Webhook(a, providers, app.Must(app.Secrets(ctx, app.WebhookSecrets))))
	lambda.Start(apigw.Handler(handler))
}
