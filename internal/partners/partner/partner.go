package partner

import (
	"encoding/json"
	"log/slog"
	"time"

	"github.com/streamops/streamops/internal/subscribe"
)

// Spec is what a partner is created with (POST /api/partners): its
// endpoint, limits, the personal data it may receive in clear and its
// subscriptions. Field names are the partners file's.
type Spec struct {
	ID                string                   `json:"id"`
	Name              string                   `json:"name"`
	URL               string                   `json:"url"`
	RateLimit         *float64                 `json:"rateLimit,omitempty"`
	MaxInFlight       *int                     `json:"maxInFlight,omitempty"`
	ClearPersonalData []string                 `json:"clearPersonalData,omitempty"`
	Subscriptions     []subscribe.Subscription `json:"subscriptions,omitempty"`
}

// View is a stored partner as the registry shows it: everything but the
// secrets' values, of which only the id and validity are told.
type View struct {
	Spec
	Secrets        []SecretInfo `json:"secrets"`
	Disabled       bool         `json:"disabled"`
	DisabledAt     *time.Time   `json:"disabledAt,omitempty"`
	DisabledReason string       `json:"disabledReason,omitempty"`
	DisabledBy     string       `json:"disabledBy,omitempty"`
	DeletedAt      *time.Time   `json:"deletedAt,omitempty"`
	// Source is where it came from: "api", or "file" (imported from the
	// partners file at start).
	Source    string    `json:"source"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
	// Version counts its changes; a PATCH may name the one it read.
	Version int `json:"version"`
}

// SecretInfo is one signing secret without its value.
type SecretInfo struct {
	ID        string     `json:"id"`
	CreatedAt time.Time  `json:"createdAt"`
	NotAfter  *time.Time `json:"notAfter,omitempty"`
}

// Change is one field of a Patch: Set when the field was given, Value
// nil when it was given as null (cleared: no limit, none).
type Change[T any] struct {
	Set   bool
	Value *T
}

// UnmarshalJSON records that the field was given; null clears it.
func (c *Change[T]) UnmarshalJSON(raw []byte) error {
	c.Set = true
	if string(raw) == "null" {
		c.Value = nil
		return nil
	}
	var v T
	if err := json.Unmarshal(raw, &v); err != nil {
		return err
	}
	c.Value = &v
	return nil
}

// Patch changes the fields it sets and keeps the others (PATCH
// /api/partners/{partnerId}, JSON merge-patch semantics: null clears).
// Version, when given, is the version the change was made against: a
// partner changed since is a conflict.
type Patch struct {
	Name              Change[string]                   `json:"name"`
	URL               Change[string]                   `json:"url"`
	RateLimit         Change[float64]                  `json:"rateLimit"`
	MaxInFlight       Change[int]                      `json:"maxInFlight"`
	ClearPersonalData Change[[]string]                 `json:"clearPersonalData"`
	Subscriptions     Change[[]subscribe.Subscription] `json:"subscriptions"`
	Version           *int                             `json:"version,omitempty"`
}

// Secret is a signing secret in clear, as a create or a rotation shows it
// once. It logs as its id only.
type Secret struct {
	ID    string
	Value string
	// NotAfter is when it stops signing; nil is no end.
	NotAfter *time.Time
}

// LogValue keeps the value out of every log line.
func (s Secret) LogValue() slog.Value { return slog.StringValue(s.ID) }

// String keeps the value out of every formatted error or message.
func (s Secret) String() string { return s.ID }

// Created is a new partner and its first signing secret, in clear this
// once.
type Created struct {
	Partner View
	Secret  Secret
}

// Deleted is a deleted partner and how many of its waiting deliveries
// were cancelled.
type Deleted struct {
	Partner   View
	Cancelled int
}

// Rotated is a partner after a rotation, its new secret in clear this
// once, and when the older ones stop signing (nil when there were none).
type Rotated struct {
	Partner  View
	Secret   Secret
	OldUntil *time.Time
}
