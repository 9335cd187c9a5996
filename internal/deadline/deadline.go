package deadline

import (
	"context"
	"time"
)

// Left reports whether ctx is live and, if it has a deadline, more than
// margin remains before it.
func Left(ctx context.Context, margin time.Duration) bool {
	if ctx.Err() != nil {
		return false
	}
	d, ok := ctx.Deadline()
	return !ok || time.Until(d) > margin
}
