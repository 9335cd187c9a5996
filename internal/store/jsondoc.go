package store

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/bson/bsontype"
	"go.mongodb.org/mongo-driver/bson/primitive"
)

// JSONDoc is a JSON object stored as a BSON sub-document, so stored payloads
// (webhook bodies, outbox payloads, partner entity_data) stay queryable with
// dot notation, while Go code handles them as raw JSON.
//
// JSON is converted with encoding/json, not Extended JSON, so a third-party
// body that happens to use keys like "$date" is stored as written rather
// than reinterpreted, and read back as plain JSON (never Extended JSON).
// Numbers keep their exact value (see jsonNumber).
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
	// Refused before any encoding, as CheckDecoded and an event's payload
	// are: converting tens of MiB could outlast the operation timeout and
	// turn a permanent refusal into "unavailable".
	if err := oversize("it is", len(d)); err != nil {
		return 0, nil, err
	}
	m, err := jsonToBSON(json.RawMessage(d))
	if err != nil {
		return 0, nil, err
	}
	raw, err := bson.Marshal(m)
	if err == nil {
		err = oversize("as BSON it is", len(raw))
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
		var doc bson.D
		if err := bson.Unmarshal(raw, &doc); err != nil {
			return fmt.Errorf("store: decode stored document: %w", err)
		}
		var b bytes.Buffer
		if err := writePlainJSON(&b, doc); err != nil {
			return fmt.Errorf("store: decode stored document: %w", err)
		}
		*d = b.Bytes()
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
		return jsonNumber(x, path)
	}
	return v, nil
}

// jsonNumber stores a JSON number with its exact value: an integer as
// int32 or int64 when it fits, a number a double holds exactly (its
// shortest form has the same decimal value) as a double, anything else as a
// Decimal128 (34 significant digits, exponents to ±6143). A number none of
// them holds is an *InvalidDocumentError: it is refused, never rounded.
func jsonNumber(x json.Number, path string) (any, error) {
	if i, err := x.Int64(); err == nil {
		if i >= math.MinInt32 && i <= math.MaxInt32 {
			return int32(i), nil
		}
		return i, nil
	}
	s := string(x)
	if f, err := strconv.ParseFloat(s, 64); err == nil && sameDecimal(s, strconv.FormatFloat(f, 'g', -1, 64)) {
		return f, nil
	}
	if d, err := primitive.ParseDecimal128(s); err == nil {
		return d, nil
	}
	return nil, &InvalidDocumentError{Field: path, Reason: fmt.Sprintf("the number %.40s cannot be stored exactly (more than 34 significant digits, or beyond ±1e6144)", s)}
}

// sameDecimal reports whether two JSON number literals have the same
// decimal value, comparing sign, significant digits and the decimal
// point's position (so "1.50" and "15e-1" are the same, "0.1" and
// "0.10000000000000000001" are not).
func sameDecimal(a, b string) bool {
	na, oka := normalDecimal(a)
	nb, okb := normalDecimal(b)
	return oka && okb && na == nb
}

// normalDecimal renders a number literal as sign, digits without leading
// or trailing zeros, and the point's position: "-12.30e1" → "-123@3".
func normalDecimal(s string) (string, bool) {
	sign := ""
	if strings.HasPrefix(s, "-") {
		sign, s = "-", s[1:]
	}
	exp := 0
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		e, err := strconv.Atoi(s[i+1:])
		if err != nil {
			return "", false
		}
		exp, s = e, s[:i]
	}
	intPart, frac, _ := strings.Cut(s, ".")
	digits, point := intPart+frac, len(intPart)+exp
	for len(digits) > 0 && digits[0] == '0' {
		digits, point = digits[1:], point-1
	}
	digits = strings.TrimRight(digits, "0")
	if digits == "" {
		return "0", true
	}
	return fmt.Sprintf("%s%s@%d", sign, digits, point), true
}

// CheckDecoded reports whether a JSON object of size bytes, which the
// caller has decoded with numbers as json.Number (as the event validator
// does: events.Mode.ValidateValue), can be stored as it is on every
// engine: a key with a NUL byte or a number no BSON type holds exactly is
// an *InvalidDocumentError naming the field. Consumers check a record with
// it before they act on it, so a record the store would refuse on every
// redelivery is dead-lettered instead of failing its batch forever.
func CheckDecoded(size int, v any) error {
	if err := oversize("it is", size); err != nil {
		return err
	}
	if _, ok := v.(map[string]any); !ok {
		return fmt.Errorf("store: payload must be a JSON object, not %T", v)
	}
	_, err := convertJSON(v, "")
	return err
}
