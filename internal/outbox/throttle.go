package outbox

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Backpressure: a partner that answers 429 or 503 with Retry-After is
// asking us to wait, not failing. The entry is retried when the partner's
// hold ends without using an attempt, the partner gets nothing meanwhile,
// and its breaker does not count it; the entry's throttled_since bounds
// how long that may go on (MaxHold), after which a throttle is an
// ordinary failure.

// DefaultMaxHold is how long a delivery may be throttled, and the longest
// hold one answer sets, by default (config STREAMOPS_PARTNER_MAX_HOLD).
const DefaultMaxHold = time.Hour

// MinHold is the shortest hold a throttle sets: a partner answering
// "Retry-After: 0" (or a past date) again and again is asked once a
// second, not in a busy loop.
const MinHold = time.Second

// parseRetryAfter reads a Retry-After header (RFC 9110 10.2.3): a number
// of seconds, or an HTTP date (then the time from now to it, 0 when past).
// ok is false when there is none or it is neither. A number of seconds
// too large for a duration is capped at limit, as is any delay beyond
// limit.
func parseRetryAfter(raw string, now time.Time, limit time.Duration) (d time.Duration, ok bool) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return 0, false
	}
	if strings.Trim(raw, "0123456789") == "" {
		secs, err := strconv.ParseUint(raw, 10, 64)
		if err != nil || secs > uint64(limit/time.Second) { // only a range error: it is all digits
			return limit, true
		}
		return time.Duration(secs) * time.Second, true
	}
	at, err := http.ParseTime(raw)
	if err != nil {
		return 0, false
	}
	return min(max(at.Sub(now), 0), limit), true
}

// throttleHold decides whether attempt a, ended at now, is a throttle:
// a 429 or 503 with a readable Retry-After, for an entry throttled
// without a break since since (nil: not yet) no longer than maxHold. It
// returns how long the partner is held: the Retry-After, at least
// MinHold, at most maxHold.
func throttleHold(a Attempt, now time.Time, since *time.Time, maxHold time.Duration) (time.Duration, bool) {
	if a.StatusCode != http.StatusTooManyRequests && a.StatusCode != http.StatusServiceUnavailable {
		return 0, false
	}
	d, ok := parseRetryAfter(a.RetryAfter, now, maxHold)
	if !ok || since != nil && now.Sub(*since) > maxHold {
		return 0, false
	}
	return min(max(d, MinHold), maxHold), true
}
