package store

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/bson"
)

// ReplayFilter is seed 001's ReplayFilter: one way to select events used by
// browse, replay preview, replay and export alike. JSON field names are the
// seed's. Each field with a JSON name is a filter (FilterFields): its query
// parameter, its CLI flag and the console's form field follow from it, and
// it makes the filter non-empty (IsEmpty) unless tagged filter:"excludes".
type ReplayFilter struct {
	EventIDs    []string `json:"event_ids,omitempty"`
	ExecutionID string   `json:"execution_id,omitempty"`
	AggregateID string   `json:"aggregate_id,omitempty"`
	EventTypes  []string `json:"event_types,omitempty"`
	// ExcludeEventTypes leaves types out; alone it selects everything
	// else, so it does not make a filter non-empty.
	ExcludeEventTypes []string   `json:"exclude_event_types,omitempty" filter:"excludes"`
	StartTime         *time.Time `json:"start_time,omitempty"`
	EndTime           *time.Time `json:"end_time,omitempty"`
	UserID            string     `json:"user_id,omitempty"`
	ServiceName       string     `json:"service_name,omitempty"`
	// PartnerID restricts results to the executions that partner's webhook
	// deliveries started (events.partner_id). Not in seed 001: the API sets
	// it to scope a partner's token; it is never read from a request.
	PartnerID string `json:"-"`
	// storedUntil and notReplayedBy make a replay session's snapshot (not
	// in seed 001; never read from a request nor stored: WithSnapshot).
	storedUntil   *time.Time
	notReplayedBy string
}

// WithSnapshot is f narrowed to replay session's snapshot: the events
// stored at or before at, none of them a copy session stored (see
// EventDocument.ReplaySessionID), so a replay never selects its own
// output, whatever the clocks of the processes that store and replay.
func (f ReplayFilter) WithSnapshot(at time.Time, session string) ReplayFilter {
	f.storedUntil, f.notReplayedBy = &at, session
	return f
}

// FilterField is one filter of ReplayFilter: its JSON name, which is also
// its query parameter on GET /api/events and its CLI flag's field, and the
// struct field that holds it.
type FilterField struct {
	Name string
	reflect.StructField
}

// FilterFields are ReplayFilter's filters in field order: every field with
// a JSON name (not PartnerID, which the API sets). They are the one list of
// filters the query parameters, the OpenAPI document and the CLI follow.
func FilterFields() []FilterField {
	var out []FilterField
	for _, f := range reflect.VisibleFields(reflect.TypeFor[ReplayFilter]()) {
		if name, _, _ := strings.Cut(f.Tag.Get("json"), ","); name != "" && name != "-" {
			out = append(out, FilterField{Name: name, StructField: f})
		}
	}
	return out
}

// Excludes reports whether the filter only leaves events out (tagged
// filter:"excludes", as exclude_event_types): alone it selects everything
// else, so it does not make a filter non-empty.
func (f FilterField) Excludes() bool { return f.Tag.Get("filter") == "excludes" }

// IsEmpty is seed 001's is_empty: true when no selecting field is set. It
// reads every filter of FilterFields but those that only exclude, so a
// field added to ReplayFilter counts without a line here.
func (f ReplayFilter) IsEmpty() bool {
	v := reflect.ValueOf(f)
	for _, field := range FilterFields() {
		if !field.Excludes() && !v.FieldByIndex(field.Index).IsZero() {
			return false
		}
	}
	return true
}

// SelectsSome reports whether f names the events it selects: a filter
// field, or event types to leave out (not empty in the sense of a replay
// of everything, though seed 001's is_empty ignores exclusions).
func (f ReplayFilter) SelectsSome() bool { return !f.IsEmpty() || len(f.ExcludeEventTypes) > 0 }

// ToQuery is seed 001's to_mongo_query, field for field: the single place a
// filter becomes a MongoDB query.
func (f ReplayFilter) ToQuery() bson.M {
	q := bson.M{}
	if len(f.EventIDs) > 0 {
		q["event_id"] = bson.M{"$in": f.EventIDs}
	}
	if f.ExecutionID != "" {
		q["execution_id"] = f.ExecutionID
	}
	if f.AggregateID != "" {
		q["aggregate_id"] = f.AggregateID
	}
	if len(f.EventTypes) > 0 {
		q["event_type"] = bson.M{"$in": f.EventTypes}
	}
	if len(f.ExcludeEventTypes) > 0 {
		if et, ok := q["event_type"].(bson.M); ok {
			et["$nin"] = f.ExcludeEventTypes
		} else {
			q["event_type"] = bson.M{"$nin": f.ExcludeEventTypes}
		}
	}
	putTimeRange(q, "timestamp", f.StartTime, f.EndTime)
	if f.UserID != "" {
		q["metadata.user_id"] = f.UserID
	}
	if f.ServiceName != "" {
		q["metadata.service_name"] = f.ServiceName
	}
	if f.PartnerID != "" {
		q["partner_id"] = f.PartnerID
	}
	if f.storedUntil != nil {
		q["stored_at"] = bson.M{"$lte": bsonTime(*f.storedUntil)}
	}
	if f.notReplayedBy != "" {
		q["replay_session_id"] = bson.M{"$ne": f.notReplayedBy}
	}
	return q
}

// equalTo is the filter that matches each field to its value; a field
// whose value is empty is left out (it matches everything).
func equalTo(values map[string]string) bson.M {
	q := bson.M{}
	for field, v := range values {
		if v != "" {
			q[field] = v
		}
	}
	return q
}

// putTimeRange makes q match field from from to to, both included; a nil
// bound is open, and with neither q is left as it was.
func putTimeRange(q bson.M, field string, from, to *time.Time) {
	if from == nil && to == nil {
		return
	}
	r := bson.M{}
	if from != nil {
		r["$gte"] = bsonTime(*from)
	}
	if to != nil {
		r["$lte"] = bsonTime(*to)
	}
	q[field] = r
}

// Cursor is a position in the (timestamp, event_id) order of events. Its
// encoded form is opaque to clients; because it names a position, not an
// offset, it stays valid while events are inserted.
type Cursor struct {
	Timestamp time.Time `json:"t"`
	// Seq is the event's sequence number (events only; see
	// EventDocument.Seq).
	Seq     int64  `json:"s,omitempty"`
	EventID string `json:"id"`
}

// ErrBadCursor is returned for a cursor the API did not issue.
var ErrBadCursor = errors.New("store: invalid cursor")

// Encode renders the cursor for a client.
func (c Cursor) Encode() string {
	b, _ := json.Marshal(c)
	return base64.RawURLEncoding.EncodeToString(b)
}

// DecodeCursor parses a cursor from Encode.
func DecodeCursor(s string) (Cursor, error) {
	var c Cursor
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || json.Unmarshal(b, &c) != nil || c.EventID == "" {
		return Cursor{}, fmt.Errorf("%w: %q", ErrBadCursor, s)
	}
	return c, nil
}

// eventOrder is the order of browse, export and replay: oldest first,
// events of the same millisecond in the order they were stored (seq, which
// is causal for an aggregate), then event_id, so a cursor is a total
// position.
var eventOrder = bson.D{{Key: "timestamp", Value: 1}, {Key: "seq", Value: 1}, {Key: "event_id", Value: 1}}

// FindEvents returns up to limit events matching f after the cursor (nil:
// from the start), in (timestamp, seq, event_id) order, and the cursor of the
// next page ("" when this was the last).
func (s *Store) FindEvents(ctx context.Context, f ReplayFilter, after *Cursor, limit int) ([]EventDocument, string, error) {
	q := f.ToQuery()
	if after != nil {
		q = pastCursor(q, "timestamp", "$gt", after.Timestamp,
			bson.M{"seq": bson.M{"$gt": after.Seq}},
			bson.M{"seq": after.Seq, "event_id": bson.M{"$gt": after.EventID}})
	}
	return findPage(ctx, s.events, q, eventOrder, limit,
		func(d EventDocument) Cursor { return Cursor{Timestamp: d.Timestamp, Seq: d.Seq, EventID: d.EventID} })
}

// CountEvents counts the events matching f.
func (s *Store) CountEvents(ctx context.Context, f ReplayFilter) (int64, error) {
	n, err := s.events.CountDocuments(ctx, f.ToQuery())
	return n, normalise(err)
}
