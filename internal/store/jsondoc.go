package store

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"

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
	if err == nil && len(raw) > MaxDocumentSize {
		err = &InvalidDocumentError{Reason: fmt.Sprintf("it is %d bytes as BSON, over the %d a MongoDB document may hold", len(raw), MaxDocumentSize)}
	}
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

// jsonToBSON converts a JSON object into a BSON-encodable map. A key BSON
// cannot hold (one with a NUL byte) is an *InvalidDocumentError naming it,
// on every engine, before anything is sent.
func jsonToBSON(raw json.RawMessage) (bson.M, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v map[string]any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("store: payload must be a JSON object: %w", err)
	}
	m, err := convertJSON(v, "")
	if err != nil {
		return nil, err
	}
	return m.(bson.M), nil
}

func convertJSON(v any, path string) (any, error) {
	switch x := v.(type) {
	case map[string]any:
		m := make(bson.M, len(x))
		for k, e := range x {
			field := k
			if path != "" {
				field = path + "." + k
			}
			if strings.IndexByte(k, 0) >= 0 {
				return nil, &InvalidDocumentError{Field: field, Reason: "the key contains a NUL byte (\\u0000), which BSON cannot store"}
			}
			c, err := convertJSON(e, field)
			if err != nil {
				return nil, err
			}
			m[k] = c
		}
		return m, nil
	case []any:
		a := make(bson.A, len(x))
		for i, e := range x {
			c, err := convertJSON(e, fmt.Sprintf("%s.%d", path, i))
			if err != nil {
				return nil, err
			}
			a[i] = c
		}
		return a, nil
	case json.Number:
		if i, err := x.Int64(); err == nil {
			if i >= math.MinInt32 && i <= math.MaxInt32 {
				return int32(i), nil
			}
			return i, nil
		}
		f, _ := x.Float64()
		return f, nil
	}
	return v, nil
}
