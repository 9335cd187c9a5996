// Command outbox-relay is the StreamOps outbox relay Lambda (EventBridge
// Scheduler, every STREAMOPS_SCHEDULE_PERIOD): claim due outbox entries,
// deliver, settle, and keep serving what falls due until the next run.
package main

import (
	"context"

	"github.com/streamops/streamops/internal/app"
	"github.com/streamops/streamops/internal/config"
	"github.com/streamops/streamops/internal/handlers"
	"github.com/streamops/streamops/internal/outbox"
)

func main() {
	app.Start("outbox-relay", func(_ context.Context, a *app.App, cfg config.OutboxRelay) (any, error) {
		partners := app.Must(outbox.LoadPartners(cfg.Partners.PartnersFile))
		secrets := app.Must(app.Secrets(app.PartnerSecrets, cfg.Lambda.OnLambda(), cfg.PartnerSecrets.Prefix))
		return handlers.OutboxRelay(a, handlers.RelayOptions{Partners: partners, Secrets: secrets, Refresh: cfg.Partners.Refresh.Duration(),
			Period: cfg.Schedule.Period.Duration(), MaxHold: cfg.Backpressure.MaxHold.Duration(), DisableAfter: cfg.Backpressure.DisableAfter.Duration()})
	})
}
