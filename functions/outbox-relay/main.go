// Command outbox-relay is the StreamOps outbox relay Lambda (EventBridge
// Scheduler, every STREAMOPS_SCHEDULE_PERIOD): claim due outbox entries,
// deliver, settle, and keep serving what falls due until the next run.
package main

import (
	"context"
	"os"

	"github.com/streamops/streamops/internal/app"
	"github.com/streamops/streamops/internal/handlers"
	"github.com/streamops/streamops/internal/outbox"
)

func main() {
	app.Start("outbox-relay", func(ctx context.Context, a *app.App) (any, error) {
		partners := app.Must(outbox.LoadPartners(os.Getenv("STREAMOPS_PARTNERS_FILE")))
		period := app.Must(handlers.SchedulePeriod())
		return handlers.OutboxRelay(a, partners, app.Must(app.Secrets(ctx, app.PartnerSecrets)), period)
	})
}
