// Command archiver is the StreamOps archiver Lambda (EventBridge Scheduler,
// daily): copy events near their TTL into events_archive.
package main

import (
	"context"

	"github.com/streamops/streamops/internal/app"
	"github.com/streamops/streamops/internal/config"
	"github.com/streamops/streamops/internal/handlers"
)

func main() {
	app.Start("archiver", func(_ context.Context, a *app.App, _ config.Archiver) (any, error) { return handlers.Archiver(a) })
}
