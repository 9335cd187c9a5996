package store

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/bson/bsontype"
)

// JSONDoc is a JSON object stored as a BSON sub-document, so stored payloads
// (webhook bodies, outbox payloads, partner entity_data) stay queryable with
// dot notation, while Go code handles them as raw JSON.
//
// JSON is converted with encoding/json, not Extended JSON, so a third-party
// body that happens to use keys like "$date" is stored as written rather
// than reinterpreted. Integers become int64 (int32 when they fit), other
// numbers float64.
type JSONDoc json.RawMessage

// MarshalJSON returns the JSON itself ("null" when empty).
func (d JSONDoc) MarshalJSON() ([]byte, error) {
	if len(d) == 0 {
		return []byte("null"), nil
	}
	return d, nil
}

// UnmarshalJSON keeps a copy of the raw JSON.
func (d *JSONDoc) UnmarshalJSON(b []byte) error {
	*d = append((*d)[:0], b...)
	return nil
}

// MarshalBSONValue encodes the JSON object as a BSON document (null when
// empty).
func (d JSONDoc) MarshalBSONValue() (bsontype.Type, []byte, error) {
	if len(d) == 0 || string(d) == "null" {
		return bson.TypeNull, nil, nil
	}
	m, err := jsonToBSON(json.RawMessage(d))
	if err != nil {
		return 0, nil, err
	}
	raw, err := bson.Marshal(m)
	return bson.TypeEmbeddedDocument, raw, err
}

// UnmarshalBSONValue decodes a BSON document back into JSON.
func (d *JSONDoc) UnmarshalBSONValue(t bsontype.Type, raw []byte) error {
	switch t {
	case bson.TypeNull, bson.TypeUndefined:
		*d = nil
		return nil
	case bson.TypeEmbeddedDocument:
		out, err := bson.MarshalExtJSON(bson.Raw(raw), false, false)
		if err != nil {
			return fmt.Errorf("store: decode stored document: %w", err)
		}
		*d = out
		return nil
	}
	return fmt.Errorf("store: expected a stored document, got BSON %s", t)
}

// jsonToBSON converts a JSON object into a BSON-encodable map.
func jsonToBSON(raw json.RawMessage) (bson.M, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v map[string]any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("store: payload must be a JSON object: %w", err)
	}
	return convertJSON(v).(bson.M), nil
}

func convertJSON(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(bson.M, len(x))
		for k, e := range x {
			m[k] = convertJSON(e)
		}
		return m
	case []any:
		a := make(bson.A, len(x))
		for i, e := range x {
			a[i] = convertJSON(e)
		}
		return a
	case json.Number:
		if i, err := x.Int64(); err == nil {
			if i >= math.MinInt32 && i <= math.MaxInt32 {
				return int32(i)
			}
			return i
		}
		f, _ := x.Float64()
		return f
	}
	return v
}
