// Command api is the StreamOps API Lambda behind API Gateway's /api/…:
// submissions, the event history (browse, search, export, replay) and the
// operations routes.
package main

import (
	"context"
	"os"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/streamops/streamops/internal/apigw"
	"github.com/streamops/streamops/internal/app"
	"github.com/streamops/streamops/internal/history"
	"github.com/streamops/streamops/internal/httpapi"
	"github.com/streamops/streamops/internal/ingest"
	"github.com/streamops/streamops/internal/submit"
	"github.com/streamops/streamops/internal/webhook"
)

func main() {
	ctx := context.Background()
	a := app.Must(app.Open(ctx, app.FromEnv("api")))
	router := app.Must(ingest.New(ingest.Config{
		Providers: app.Must(webhook.LoadProviders(os.Getenv("STREAMOPS_PROVIDERS_FILE"))),
		Secrets:   webhook.EnvSecrets{}, // retrying a stored event verifies nothing
		Store:     a.Store, Emitter: a.Emitter, Logger: a.Logger, Metrics: a.Metrics,
	}))
	handler := httpapi.API(httpapi.APIConfig{
		Submit:   app.Must(submit.New(a.Store, a.Emitter, nil, a.Logger)),
		Store:    a.Store,
		Replayer: &history.Replayer{Store: a.Store, Publisher: a.Bus, Logger: a.Logger},
		Exporter: &history.Exporter{Store: a.Store, Objects: app.Must(app.ExportStore(ctx)), Logger: a.Logger},
		Router:   router,
		Requeuer: &history.Requeuer{Store: a.Store, Publisher: a.Bus},
		Auth: httpapi.Authenticators{apigw.JWTAuth{}, httpapi.TokenAuth{
			AdminToken:    os.Getenv("STREAMOPS_ADMIN_TOKEN"),
			PartnerTokens: httpapi.ParsePartnerTokens(os.Getenv("STREAMOPS_PARTNER_TOKENS")),
		}},
		Logger: a.Logger,
	})
	lambda.Start(apigw.Handler(handler))
}
