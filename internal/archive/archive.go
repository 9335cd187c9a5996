package archive

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/streamops/streamops/internal/deadline"
	"github.com/streamops/streamops/internal/metrics"
)

// Archive copies events near their TTL to the archive; *store.Store
// implements it.
type Archive interface {
	ArchiveExpiring(ctx context.Context, expiringBy time.Time, limit int) (int, error)
}

// Config wires an Archiver.
type Config struct {
	// Store is archived. Required.
	Store Archive
	// Within is the look-ahead: events whose ttl_expires_at falls within it
	// are archived. Default 2 days: two daily runs, so one failed run loses
	// nothing.
	Within time.Duration
	// BatchSize bounds each copy. Default 500.
	BatchSize int
	// SafetyMargin is how long before the deadline the archiver stops.
	// Default 10 s.
	SafetyMargin time.Duration
	// Now is the clock. Default time.Now.
	Now func() time.Time
	// Logger receives progress. Default slog.Default().
	Logger *slog.Logger
	// Metrics receives EventsArchived. Default none.
	Metrics *metrics.Recorder
}

// Archiver copies expiring events to the archive.
type Archiver struct{ cfg Config }

// New returns an Archiver.
func New(cfg Config) (*Archiver, error) {
	if cfg.Store == nil {
		return nil, errors.New("archive: Config.Store is required")
	}
	if cfg.Within <= 0 {
		cfg.Within = 48 * time.Hour
	}
	if cfg.BatchSize <= 0 {
		cfg.BatchSize = 500
	}
	if cfg.SafetyMargin <= 0 {
		cfg.SafetyMargin = 10 * time.Second
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	return &Archiver{cfg: cfg}, nil
}

// Run archives in batches until nothing expiring is left or the deadline
// nears, logging progress per batch, and returns how many it archived.
func (a *Archiver) Run(ctx context.Context) (int, error) {
	total := 0
	by := a.cfg.Now().Add(a.cfg.Within)
	defer func() {
		a.cfg.Logger.InfoContext(ctx, "archiver run finished", "archived", total, "expiringBy", by)
		a.cfg.Metrics.Record(metrics.Metric{Name: "EventsArchived", Unit: metrics.Count, Value: float64(total)})
	}()
	for ctx.Err() == nil {
		if !deadline.Left(ctx, a.cfg.SafetyMargin) {
			a.cfg.Logger.WarnContext(ctx, "archiver stopping before the deadline; the next run continues", "archived", total)
			break
		}
		n, err := a.cfg.Store.ArchiveExpiring(ctx, by, a.cfg.BatchSize)
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
