package deadline

import (
	"context"
	"time"
)

// windDownKey carries the channel that asks an invocation to wrap up.
type windDownKey struct{}

// WithWindDown returns ctx carrying stop: once stop is closed, Left
// reports no time left and Sleep returns early, so a scheduled function
// finishes what is in flight and returns without taking more work. The
// local runtime uses it when it shuts down, since an invocation's own
// context is not cancelled with its trigger.
func WithWindDown(ctx context.Context, stop <-chan struct{}) context.Context {
	return context.WithValue(ctx, windDownKey{}, stop)
}

// windingDown reports whether ctx's wind-down channel is closed.
func windingDown(ctx context.Context) bool {
	stop, _ := ctx.Value(windDownKey{}).(<-chan struct{})
	select {
	case <-stop:
		return true
	default:
		return false
	}
}

// Left reports whether ctx is live, not winding down and, if it has a
// deadline, more than margin remains before it.
func Left(ctx context.Context, margin time.Duration) bool {
	if ctx.Err() != nil || windingDown(ctx) {
		return false
	}
	d, ok := ctx.Deadline()
	return !ok || time.Until(d) > margin
}

// Sleep waits d and reports true, or reports false as soon as ctx ends or
// winds down.
func Sleep(ctx context.Context, d time.Duration) bool { return SleepOr(ctx, d, nil) }

// SleepOr is Sleep that also ends early, reporting true, when wake
// receives: a caller waiting for a time or for news.
func SleepOr(ctx context.Context, d time.Duration, wake <-chan struct{}) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	stop, _ := ctx.Value(windDownKey{}).(<-chan struct{})
	select {
	case <-t.C:
		return true
	case <-wake:
		return true
	case <-ctx.Done():
		return false
	case <-stop:
		return false
	}
}
