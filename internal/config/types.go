package config

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/streamops/streamops/internal/store"
)

// MinRetention is the shortest retention a RetentionPeriod accepts. A shorter
// period is a mistaken unit (90s for 90d) rather than a policy: it would
// delete webhook rows while their providers still redeliver them.
const MinRetention = time.Hour

// RetentionPeriod is a whole number of days ("90d") or a Go duration
// ("2160h", "36h30m"), at least MinRetention.
type RetentionPeriod time.Duration

// UnmarshalText parses a retention period.
func (r *RetentionPeriod) UnmarshalText(b []byte) error {
	d, err := ParseRetention(string(b))
	*r = RetentionPeriod(d)
	return err
}

// ParseRetention reads a retention period (see RetentionPeriod); the error
// says what is wanted.
func ParseRetention(value string) (time.Duration, error) {
	d, err := parseDays(strings.TrimSpace(value))
	if err != nil {
		return 0, fmt.Errorf("want a retention period such as 90d or 2160h: %w", err)
	}
	if d < MinRetention {
		return 0, fmt.Errorf("want a retention period of at least %s (such as 90d or 2160h)", MinRetention)
	}
	if d > store.MaxRetention {
		return 0, fmt.Errorf("want a retention period of at most %d days (a TTL index's longest)", store.MaxRetention/(24*time.Hour))
	}
	return d, nil
}

// ArchivePeriod is a RetentionPeriod or "permanent" (store.Permanent):
// the archive kept forever.
type ArchivePeriod time.Duration

// Permanent is the ArchivePeriod value that keeps the archive forever.
const Permanent = "permanent"

// UnmarshalText parses an archive period.
func (r *ArchivePeriod) UnmarshalText(b []byte) error {
	if strings.EqualFold(strings.TrimSpace(string(b)), Permanent) {
		*r = ArchivePeriod(store.Permanent)
		return nil
	}
	d, err := ParseRetention(string(b))
	if err != nil {
		return fmt.Errorf("%w, or %s", err, Permanent)
	}
	*r = ArchivePeriod(d)
	return nil
}

// Duration returns r as a time.Duration (store.Permanent for permanent).
func (r ArchivePeriod) Duration() time.Duration { return time.Duration(r) }

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

// Delay is a Go duration that may be 0 but not negative ("250ms", "10m",
// "0").
type Delay time.Duration

// UnmarshalText parses a non-negative Go duration.
func (d *Delay) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil || v < 0 {
		return errors.New("want a Go duration such as 250ms or 10m, or 0")
	}
	*d = Delay(v)
	return nil
}

// Timeout is a positive Go duration ("5s").
type Timeout time.Duration

// UnmarshalText parses a positive Go duration.
func (t *Timeout) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil || v <= 0 {
		return errors.New("want a positive duration such as 5s")
	}
	*t = Timeout(v)
	return nil
}

// Count is a positive whole number (a limit).
type Count int

// UnmarshalText parses a positive whole number.
func (c *Count) UnmarshalText(b []byte) error {
	n, err := strconv.Atoi(string(b))
	if err != nil || n <= 0 {
		return errors.New("is not a positive whole number")
	}
	*c = Count(n)
	return nil
}

// Bytes is a whole number of bytes; its range is checked by its consumer
// (bus.Config.Validate for KAFKA_MAX_MESSAGE_BYTES).
type Bytes int

// UnmarshalText parses a whole number.
func (n *Bytes) UnmarshalText(b []byte) error {
	v, err := strconv.Atoi(string(b))
	if err != nil {
		return errors.New("want a whole number of bytes")
	}
	*n = Bytes(v)
	return nil
}

// OptIn is true only for the exact value "true": anything else leaves a
// guard in place rather than failing the start.
type OptIn bool

// UnmarshalText is true for "true" only.
func (o *OptIn) UnmarshalText(b []byte) error {
	*o = string(b) == "true"
	return nil
}

// Ratio is a fraction from 0 to 1 ("0.05").
type Ratio float64

// UnmarshalText parses a number from 0 to 1.
func (r *Ratio) UnmarshalText(b []byte) error {
	v, err := strconv.ParseFloat(string(b), 64)
	if err != nil || !(v >= 0 && v <= 1) { // NaN fails both comparisons
		return errors.New("want a number from 0 to 1 such as 0.05")
	}
	*r = Ratio(v)
	return nil
}

// GCPercent is a garbage collector target as GOGC reads it: a whole
// number of percent, or off. Go itself reads GOGC at start; this only
// refuses a value Go would silently take for its default.
type GCPercent string

// UnmarshalText accepts off or a whole number from 0.
func (g *GCPercent) UnmarshalText(b []byte) error {
	v := strings.TrimSpace(string(b))
	if n, err := strconv.Atoi(v); v != "off" && (err != nil || n < 0) {
		return errors.New("want a whole number of percent such as 200, or off")
	}
	*g = GCPercent(v)
	return nil
}
