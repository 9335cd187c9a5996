// Package runlog writes the line a scheduled function's run ends with
// (outbox-relay, retry-sweeper, archiver): at info when the run did
// something, at debug when it was idle, so a schedule of seconds does not
// bury the lines worth reading. It holds nothing else.
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
