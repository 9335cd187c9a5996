// Command retry-sweeper is the StreamOps retry-sweeper Lambda (EventBridge
// Scheduler, every minute): publish what was stored but not published,
// redeliver the task.failed of due task retries, route failed or stranded
// webhook events,
// re-enqueue failed partner deliveries.
package main

import (
	"context"

	"github.com/streamops/streamops/internal/app"
	"github.com/streamops/streamops/internal/config"
	"github.com/streamops/streamops/internal/handlers"
)

func main() {
	app.Start("retry-sweeper", func(_ context.Context, a *app.App, cfg config.RetrySweeper) (any, error) {
		return handlers.RetrySweeper(a, app.Must(app.Providers(cfg.Providers)), cfg.Sweep)
	})
}
