package runlog

import (
	"context"
	"log/slog"
)

// Finished logs msg with args at info, or at debug when idle.
func Finished(ctx context.Context, logger *slog.Logger, idle bool, msg string, args ...any) {
	level := slog.LevelInfo
	if idle {
		level = slog.LevelDebug
	}
	logger.Log(ctx, level, msg, args...)
}
