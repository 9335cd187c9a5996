package store

import (
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"time"
)

// The environment variables of the retention periods.
const (
	// EnvEventsTTL is Config.EventTTL: how long an event stays in events
	// before it is archived and deleted.
	EnvEventsTTL = "STREAMOPS_EVENTS_TTL"
	// EnvWebhookEventsTTL is Config.WebhookEventTTL: how long a
	// webhook_events row is kept.
	EnvWebhookEventsTTL = "STREAMOPS_WEBHOOK_EVENTS_TTL"
)

// DefaultRetention is both retention periods' default: 90 days (seed 001
// "TTL and retention"; webhook_events keep as long as the events they
// started).
const DefaultRetention = 90 * 24 * time.Hour

// MinRetention is the shortest retention ParseRetention accepts. A shorter
// period is a mistaken unit (90s for 90d) rather than a policy: it would
// delete webhook rows while their providers still redeliver them.
const MinRetention = time.Hour

// ParseRetention reads a retention period: a whole number of days ("90d")
// or a Go duration ("2160h", "36h30m"), at least MinRetention. The error
// names the variable name and says what is wanted.
func ParseRetention(name, value string) (time.Duration, error) {
	d, err := parseDays(strings.TrimSpace(value))
	if err != nil {
		return 0, fmt.Errorf("store: %s=%q: want a retention period such as 90d or 2160h: %w", name, value, err)
	}
	if d < MinRetention {
		return 0, fmt.Errorf("store: %s=%q: want a retention period of at least %s (such as 90d or 2160h)", name, value, MinRetention)
	}
	return d, nil
}

// parseDays parses "<n>d" or a Go duration.
func parseDays(v string) (time.Duration, error) {
	days, ok := strings.CutSuffix(v, "d")
	if !ok {
		return time.ParseDuration(v)
	}
	n, err := strconv.ParseInt(days, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a whole number of days", days)
	}
	if n > math.MaxInt64/int64(24*time.Hour) {
		return 0, fmt.Errorf("%d days is too long", n)
	}
	return time.Duration(n) * 24 * time.Hour, nil
}

// RetentionFromEnv is ParseRetention of the variable name; unset is 0
// (Config's default, DefaultRetention).
func RetentionFromEnv(name string) (time.Duration, error) {
	v, ok := os.LookupEnv(name)
	if !ok || v == "" {
		return 0, nil
	}
	return ParseRetention(name, v)
}
