// Command webhook is the StreamOps webhook Lambda behind API Gateway's
// POST /webhooks/{provider}: verify, dedupe, scrub, store, route, publish.
//
// It wires ingest itself rather than through internal/handlers, which links
// every function's dependencies (the task executors' SES and S3 clients
// among them) and would grow this bootstrap (docs/performance.md).
package main

import (
	"context"

	"github.com/streamops/streamops/internal/apigw"
	"github.com/streamops/streamops/internal/app"
	"github.com/streamops/streamops/internal/httpapi"
	"github.com/streamops/streamops/internal/ingest"
)

func main() {
	app.Start("webhook", func(ctx context.Context, a *app.App) (any, error) {
		providers := app.Must(app.Providers())
		svc, err := ingest.New(ingest.Config{Providers: providers, Secrets: app.Must(app.Secrets(ctx, app.WebhookSecrets)),
			Store: a.Store, Emitter: a.Emitter, Logger: a.Logger, Metrics: a.Metrics})
		return apigw.Function(httpapi.Webhooks(svc, a.Logger)), err
	})
}
