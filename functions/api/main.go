// Command api is the StreamOps API Lambda behind API Gateway's /api/…:
// submissions, the event history (browse, search, export, replay) and the
// operations routes, the partners kept in the store (POST, PATCH, DELETE
// /api/partners…; the partners file, STREAMOPS_PARTNERS_FILE, imported
// into the store at start) shown by GET /api/partners; and the operations
// console under /console.
package main

import (
	"context"

	"github.com/streamops/streamops/internal/apigw"
	"github.com/streamops/streamops/internal/app"
	"github.com/streamops/streamops/internal/config"
	"github.com/streamops/streamops/internal/handlers"
	"github.com/streamops/streamops/internal/objects/s3bucket"
	"github.com/streamops/streamops/internal/outbox"
)

func main() {
	app.Start("api", func(_ context.Context, a *app.App, cfg config.API) (any, error) {
		handler, err := handlers.API(a, handlers.APIOptions{
			Providers: app.Must(app.Providers(cfg.Providers)),
			Partners:  app.Must(outbox.LoadPartners(cfg.Partners.PartnersFile)),
			// POST /api/partners/{partnerId}/test signs as the relay does.
			PartnerSecrets: app.Must(app.Secrets(app.PartnerSecrets, cfg.Lambda.OnLambda(), cfg.PartnerSecrets.Prefix)),
			Objects:        app.Must(s3bucket.ExportStore(cfg.Exports.Bucket, cfg.Store.DataDir)),
			Auth:           app.Must(handlers.Auth(cfg.Tokens)),
			Limits:         cfg.Limits,
		})
		return apigw.Function(handler), err
	})
}
