package events

import "encoding/json"

// Metadata is the optional seed-003 event metadata. Source is the publishing
// function ("api-gateway", "event-processor", "webhook", "retry-sweeper",
// "operations": docs/conformance.md).
type Metadata struct {
	Source        string     `json:"source,omitempty"`
	UserID        NullString `json:"userId,omitzero"`
	APIVersion    string     `json:"apiVersion,omitempty"`
	ProcessorID   string     `json:"processorId,omitempty"`
	TraceID       string     `json:"traceId,omitempty"`
	CorrelationID string     `json:"correlationId,omitempty"`
	// ReplayOf is the eventId of the original event when this one is a replay.
	ReplayOf string `json:"replayOf,omitempty"`
	// PartnerID is the provider or partner whose webhook delivery started
	// this execution (not in seed 003). Every event of the execution carries
	// it, so a partner's history is one indexed field (events.partner_id).
	PartnerID string `json:"partnerId,omitempty"`
	// Attempt is which run of a workflow the event belongs to, from 2 on:
	// a rerun (POST /api/workflows/{id}/rerun) announces and runs its
	// steps as attempt 2, 3, …, every event of it carrying the number (not
	// in seed 003). Absent on a workflow's first run and on other events.
	Attempt int `json:"attempt,omitempty"`
	// Extra is the metadata's fields this version does not name, written
	// after the others; only a consumed event has them (Consumed).
	Extra Extra `json:"-"`
}

// plainMetadata is Metadata without its JSON methods.
type plainMetadata Metadata

// MarshalJSON encodes the metadata's fields, then its Extra members.
func (m Metadata) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(plainMetadata(m))
	if err != nil {
		return nil, err
	}
	return m.Extra.appendTo(b), nil
}

// UnmarshalJSON decodes the metadata's fields by their exact names and
// keeps the others in Extra. It decodes in place; on an error m is zero.
func (m *Metadata) UnmarshalJSON(b []byte) error {
	*m = Metadata{}
	extra, err := decodeObject(b, "metadata", (*plainMetadata)(m), m.fields()...)
	if err != nil {
		*m = Metadata{}
		return err
	}
	m.Extra = extra
	return nil
}

// fields are the metadata's members by their JSON names.
func (m *Metadata) fields() []field {
	return []field{{"source", &m.Source}, {"userId", &m.UserID}, {"apiVersion", &m.APIVersion},
		{"processorId", &m.ProcessorID}, {"traceId", &m.TraceID},
		{"correlationId", &m.CorrelationID}, {"replayOf", &m.ReplayOf}, {"partnerId", &m.PartnerID}, {"attempt", &m.Attempt}}
}

// NullString is a string that distinguishes absent, null and a value, so the
// seed's `"userId": null` survives a round trip byte-for-byte.
type NullString struct {
	// Present is true when the field appeared in JSON (as null or a string).
	Present bool
	// Valid is true when the value is a string rather than null.
	Valid bool
	// Value is the string when Valid.
	Value string
}

// Null is a present JSON null.
var Null = NullString{Present: true}

// String returns a present, non-null NullString holding s.
func String(s string) NullString { return NullString{Present: true, Valid: true, Value: s} }

// IsZero reports whether the field is absent; with `omitzero` it is omitted.
func (n NullString) IsZero() bool { return !n.Present }

// MarshalJSON encodes null or the string.
func (n NullString) MarshalJSON() ([]byte, error) {
	if !n.Valid {
		return []byte("null"), nil
	}
	return json.Marshal(n.Value)
}

// UnmarshalJSON decodes null or a string.
func (n *NullString) UnmarshalJSON(b []byte) error {
	n.Present = true
	if string(b) == "null" {
		n.Valid, n.Value = false, ""
		return nil
	}
	n.Valid = true
	return json.Unmarshal(b, &n.Value)
}

// OptionalString is s as a present string, or absent when s is empty: a
// field such as userId that only some events carry.
func OptionalString(s string) NullString {
	if s == "" {
		return NullString{}
	}
	return String(s)
}
