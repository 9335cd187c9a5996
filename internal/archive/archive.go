package archive

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/streamops/streamops/internal/deadline"
	"github.com/streamops/streamops/internal/metrics"
	"github.com/streamops/streamops/internal/runlog"
	"github.com/streamops/streamops/internal/store"
)

// Archive archives due events; *store.Store implements it.
type Archive interface {
	// BackfillRetention brings documents stored by earlier versions under
	// the retention rules.
	BackfillRetention(ctx context.Context) (store.Backfilled, error)
	// ArchiveDue archives up to limit due events, oldest first, and
	// returns how many.
	ArchiveDue(ctx context.Context, limit int) (int, error)
}

// Config wires an Archiver.
type Config struct {
	// Store is archived. Required.
	Store Archive
	// BatchSize bounds each copy. Default 500.
	BatchSize int
	// SafetyMargin is how long before the deadline the archiver stops.
	// Default 10 s.
	SafetyMargin time.Duration
	// Logger receives progress. Default slog.Default().
	Logger *slog.Logger
	// Metrics receives EventsArchived. Default none.
	Metrics *metrics.Recorder
}

// Archiver copies due events to the archive.
type Archiver struct{ cfg Config }

// New returns an Archiver.
func New(cfg Config) (*Archiver, error) {
	if cfg.Store == nil {
		return nil, errors.New("archive: Config.Store is required")
	}
	if cfg.BatchSize <= 0 {
		cfg.BatchSize = 500
	}
	if cfg.SafetyMargin <= 0 {
		cfg.SafetyMargin = 10 * time.Second
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	return &Archiver{cfg: cfg}, nil
}

// Run archives in batches, oldest first, until nothing due is left or the
// deadline nears, logging progress per batch, and returns how many it
// archived. A run that stops early, or one that never ran, leaves the rest
// in events (they cannot expire unarchived) for the next run.
func (a *Archiver) Run(ctx context.Context) (int, error) {
	total := 0
	defer func() {
		runlog.Finished(ctx, a.cfg.Logger, total == 0, "archiver run finished", "archived", total)
		a.cfg.Metrics.Record(metrics.Metric{Name: "EventsArchived", Unit: metrics.Count, Value: float64(total)})
	}()
	back, err := a.cfg.Store.BackfillRetention(ctx)
	if err != nil {
		return 0, err
	}
	if back != (store.Backfilled{}) {
		a.cfg.Logger.InfoContext(ctx, "documents of an earlier version brought under retention",
			"eventsHeldForTheArchive", back.EventsHeld, "webhookEventsExpired", back.WebhookEventsExpired,
			"tasksEnded", back.TasksEnded)
	}
	for ctx.Err() == nil {
		if !deadline.Left(ctx, a.cfg.SafetyMargin) {
			a.cfg.Logger.WarnContext(ctx, "archiver stopping before the deadline; the next run continues", "archived", total)
			break
		}
		n, err := a.cfg.Store.ArchiveDue(ctx, a.cfg.BatchSize)
		total += n
		if err != nil {
			return total, err
		}
		if n == 0 {
			break
		}
		a.cfg.Logger.InfoContext(ctx, "archived a batch", "batch", n, "archived", total)
	}
	return total, ctx.Err()
}
