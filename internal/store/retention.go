package store

import "time"

// DefaultRetention is both retention periods' default: 90 days (seed 001
// "TTL and retention"; webhook_events keep as long as the events they
// started).
const DefaultRetention = 90 * 24 * time.Hour
