package httpapi

import (
	"context"
	"net/http"
	"time"

	"github.com/streamops/streamops/internal/status"
	"github.com/streamops/streamops/internal/store"
)

// rateBuckets is how many points GET /api/stats's eventRate has at most:
// a window up to two hours is counted per minute, a longer one in wider
// buckets (whole minutes) so the series stays this long.
const rateBuckets = 120

// eventRate is the events-per-bucket series of a stats window, the
// trend the console charts.
type eventRate struct {
	// Since is the start of the first bucket; the last one ends at the
	// next whole minute, so the current minute is in it.
	Since         time.Time `json:"since"`
	BucketSeconds int       `json:"bucketSeconds"`
	Counts        []int64   `json:"counts"`
}

// rateBucketsOf splits a window into at most rateBuckets buckets of whole
// minutes ending at the minute after now.
func rateBucketsOf(window time.Duration, now time.Time) (since time.Time, bucket time.Duration, n int) {
	bucket = time.Minute
	if window > rateBuckets*time.Minute {
		bucket = ((window/rateBuckets + time.Minute - 1) / time.Minute) * time.Minute
	}
	n = int(window / bucket)
	if window%bucket != 0 {
		n++ // no (window + bucket - 1): a window near the longest duration would overflow
	}
	end := now.UTC().Truncate(time.Minute).Add(time.Minute)
	return end.Add(-time.Duration(n) * bucket), bucket, n
}

// overview is what GET /api/stats reports beside the counts, whatever the
// window: what an operator must act on now.
type overview struct {
	OpenDeadLetters int64 `json:"openDeadLetters"`
	// OldestPendingOutboxAgeSeconds is absent when nothing waits.
	OldestPendingOutboxAgeSeconds *float64                `json:"oldestPendingOutboxAgeSeconds,omitempty"`
	OpenBreakers                  []store.PartnerEndpoint `json:"openBreakers"`
	EventRate                     *eventRate              `json:"eventRate,omitempty"`
}

// loadOverview reads the overview; with a window, the event rate over it
// too.
func (a *api) loadOverview(ctx context.Context, window time.Duration, now time.Time) (overview, error) {
	var o overview
	dls, err := a.cfg.Store.CountBy(ctx, store.CollDeadLetters, "status", "", time.Time{})
	if err != nil {
		return o, err
	}
	o.OpenDeadLetters = dls[status.DeadLetterOpen]
	oldest, ok, err := a.cfg.Store.OldestPendingOutbox(ctx)
	if err != nil {
		return o, err
	}
	if ok {
		age := max(0, now.Sub(oldest).Seconds())
		o.OldestPendingOutboxAgeSeconds = &age
	}
	if o.OpenBreakers, err = a.cfg.Store.OpenBreakers(ctx); err != nil {
		return o, err
	}
	if window > 0 {
		since, bucket, n := rateBucketsOf(window, now)
		counts, err := a.cfg.Store.EventRate(ctx, since, bucket, n)
		if err != nil {
			return o, err
		}
		o.EventRate = &eventRate{Since: since, BucketSeconds: int(bucket / time.Second), Counts: counts}
	}
	return o, nil
}

// principalView is GET /api/me: the principal's id and role, with the
// admin flag and partnerId the console reads.
type principalView struct {
	ID        string `json:"id"`
	Role      string `json:"role"`
	Admin     bool   `json:"admin"`
	PartnerID string `json:"partnerId,omitempty"`
}

// me is GET /api/me: who the token acts for, so a client (the console)
// shows only what that scope may read.
func (a *api) me(w http.ResponseWriter, _ *http.Request, p Principal) {
	writeJSON(w, http.StatusOK, principalView{ID: p.ID, Role: p.Role(), Admin: p.Admin, PartnerID: p.PartnerID})
}
