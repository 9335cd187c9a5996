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
	"github.com/streamops/streamops/internal/config"
	"github.com/streamops/streamops/internal/httpapi"
	"github.com/streamops/streamops/internal/ingest"
)

func main() {
	app.Start("webhook", func(_ context.Context, a *app.App, cfg config.Webhook) (any, error) {
		providers := app.Must(app.Providers(cfg.Providers))
		secrets := app.Must(app.Secrets(app.WebhookSecrets, cfg.Lambda.OnLambda(), cfg.WebhookSecrets.Prefix))
		svc, err := ingest.New(ingest.Config{Providers: providers, Secrets: secrets,
			Store: a.Store, Emitter: a.Emitter, Logger: a.Logger, Metrics: a.Metrics, Vault: a.Vault})
		return apigw.Function(httpapi.Webhooks(svc, a.Logger)), err
	})
}
