package store

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"time"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/bson/primitive"
	"go.mongodb.org/mongo-driver/mongo/options"
)

// ExportableCollections are the collections a data_export task may read.
// Webhook bodies, outbox payloads and partner data are not among them: they
// carry third-party data that leaves only through its own integrations.
var ExportableCollections = []string{CollWorkflows, CollTasks, CollWorkflowRecords, CollEvents}

// Export limits.
const (
	DefaultExportLimit = 10_000
	MaxExportLimit     = 100_000
)

// exportHidden are internal fields an export never contains.
var exportHidden = bson.D{
	{Key: "idempotencyKey", Value: 0}, {Key: "requestHash", Value: 0}, {Key: "resumeRecords", Value: 0},
}

var exportField = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$`)

// ExportQuery selects the documents of an export.
type ExportQuery struct {
	// Collection is one of ExportableCollections.
	Collection string
	// Filter matches fields (dot paths allowed) to string values exactly.
	Filter map[string]string
	// Limit caps the documents; default DefaultExportLimit, at most
	// MaxExportLimit.
	Limit int
}

// ExportQueryError is a query that can never run: an unknown collection, a
// bad field name or limit. Retrying does not help.
type ExportQueryError struct{ Reason string }

func (e *ExportQueryError) Error() string { return "store: export: " + e.Reason }

// ExportDocuments reads the documents of an export with one query, in _id
// order, as plain JSON objects: dates become ISO 8601 strings, binary
// becomes base64, and field order is kept.
func (s *Store) ExportDocuments(ctx context.Context, q ExportQuery) ([]json.RawMessage, error) {
	if !slices.Contains(ExportableCollections, q.Collection) {
		return nil, &ExportQueryError{Reason: fmt.Sprintf("collection %q is not exportable (exportable: %v)", q.Collection, ExportableCollections)}
	}
	switch {
	case q.Limit < 0 || q.Limit > MaxExportLimit:
		return nil, &ExportQueryError{Reason: fmt.Sprintf("limit must be between 1 and %d", MaxExportLimit)}
	case q.Limit == 0:
		q.Limit = DefaultExportLimit
	}
	filter := bson.D{}
	for _, k := range slices.Sorted(maps.Keys(q.Filter)) {
		if !exportField.MatchString(k) {
			return nil, &ExportQueryError{Reason: fmt.Sprintf("filter field %q is not a field name", k)}
		}
		filter = append(filter, bson.E{Key: k, Value: q.Filter[k]})
	}
	cur, err := s.countedCollection(q.Collection).Find(ctx, filter, options.Find().
		SetSort(bson.D{{Key: "_id", Value: 1}}).SetLimit(int64(q.Limit)).SetProjection(exportHidden))
	if err != nil {
		return nil, normalise(err)
	}
	var docs []bson.D
	if err := cur.All(ctx, &docs); err != nil {
		return nil, normalise(err)
	}
	out := make([]json.RawMessage, len(docs))
	for i, d := range docs {
		var b bytes.Buffer
		if err := writePlainJSON(&b, d); err != nil {
			return nil, fmt.Errorf("store: export %s: %w", q.Collection, err)
		}
		out[i] = b.Bytes()
	}
	return out, nil
}

// writePlainJSON writes a BSON value as ordinary JSON: numbers as numbers
// (a Decimal128 with every digit), dates as ISO 8601 strings.
func writePlainJSON(b *bytes.Buffer, v any) error {
	switch x := v.(type) {
	case bson.D:
		b.WriteByte('{')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			k, _ := json.Marshal(e.Key)
			b.Write(k)
			b.WriteByte(':')
			if err := writePlainJSON(b, e.Value); err != nil {
				return err
			}
		}
		b.WriteByte('}')
		return nil
	case bson.A:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := writePlainJSON(b, e); err != nil {
				return err
			}
		}
		b.WriteByte(']')
		return nil
	case bson.M:
		d := make(bson.D, 0, len(x))
		for _, k := range slices.Sorted(maps.Keys(x)) {
			d = append(d, bson.E{Key: k, Value: x[k]})
		}
		return writePlainJSON(b, d)
	case primitive.Decimal128:
		b.WriteString(x.String()) // a JSON number: digits, point, E±exponent
		return nil
	case primitive.DateTime:
		v = x.Time().UTC().Format("2006-01-02T15:04:05.000Z")
	case time.Time:
		v = x.UTC().Format("2006-01-02T15:04:05.000Z")
	case primitive.Binary:
		v = base64.StdEncoding.EncodeToString(x.Data)
	case primitive.ObjectID:
		v = x.Hex()
	case primitive.Null, primitive.Undefined:
		v = nil
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return err
	}
	b.Write(raw)
	return nil
}

// CountEventsByType counts the events whose timestamp is in [from, to), by
// event type, with one query. Neither engine path uses an aggregation
// pipeline (the embedded engine has none): it reads only event_type of each
// event and counts here.
func (s *Store) CountEventsByType(ctx context.Context, from, to time.Time) (map[string]int, error) {
	cur, err := s.events.Find(ctx,
		bson.M{"timestamp": bson.M{"$gte": bsonTime(from), "$lt": bsonTime(to)}},
		options.Find().SetProjection(bson.M{"event_type": 1}))
	if err != nil {
		return nil, normalise(err)
	}
	var docs []struct {
		EventType string `bson:"event_type"`
	}
	if err := cur.All(ctx, &docs); err != nil {
		return nil, normalise(err)
	}
	out := map[string]int{}
	for _, d := range docs {
		out[d.EventType]++
	}
	return out, nil
}
