package events

import (
	"encoding/json"
	"fmt"
	"time"
)

// TimeLayout is the seed-003 timestamp format: ISO 8601, UTC, milliseconds.
const TimeLayout = "2006-01-02T15:04:05.000Z"

// Time is a timestamp that always encodes as ISO 8601 UTC with millisecond
// precision ("2026-01-04T01:09:27.123Z") and decodes any RFC 3339 time.
type Time struct{ time.Time }

// Now is the current time truncated to the millisecond, so a value survives a
// JSON round trip unchanged.
func Now() Time { return At(time.Now()) }

// At converts t to UTC and truncates it to the millisecond.
func At(t time.Time) Time { return Time{t.UTC().Truncate(time.Millisecond)} }

// AtPtr is At of an optional time, for a payload's optional time field:
// nil when t is.
func AtPtr(t *time.Time) *Time {
	if t == nil {
		return nil
	}
	at := At(*t)
	return &at
}

// String formats t with TimeLayout.
func (t Time) String() string { return t.UTC().Format(TimeLayout) }

// MarshalJSON encodes t with TimeLayout.
func (t Time) MarshalJSON() ([]byte, error) { return json.Marshal(t.String()) }

// UnmarshalJSON decodes an RFC 3339 string.
func (t *Time) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("events: timestamp must be an ISO 8601 string: %w", err)
	}
	parsed, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return fmt.Errorf("events: timestamp %q is not ISO 8601: %w", s, err)
	}
	t.Time = parsed.UTC()
	return nil
}
