package events

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/streamops/streamops/internal/jsonbody"
)

// Extra is the members of a JSON object that the Go type holding it does
// not name, as one compact JSON object with its members sorted by name;
// "" when there are none. Envelope and Metadata keep them so an event a
// newer 1.x producer wrote is stored, dead-lettered, requeued and replayed
// with the fields it added (seed 003: added fields are optional, not
// dropped). It is a string so the types holding it stay comparable.
type Extra string

// Members is e as a map, nil when e is empty.
func (e Extra) Members() (map[string]json.RawMessage, error) {
	if e == "" {
		return nil, nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(e), &m); err != nil {
		return nil, fmt.Errorf("events: extra members: %w", err)
	}
	return m, nil
}

// ExtraOf is the Extra of members ("" when there are none), each value
// compacted.
func ExtraOf(members map[string]json.RawMessage) (Extra, error) {
	if len(members) == 0 {
		return "", nil
	}
	var b bytes.Buffer
	b.WriteByte('{')
	for i, name := range slices.Sorted(maps.Keys(members)) {
		if i > 0 {
			b.WriteByte(',')
		}
		key, err := json.Marshal(name)
		if err != nil {
			return "", err
		}
		b.Write(key)
		b.WriteByte(':')
		if err := json.Compact(&b, members[name]); err != nil {
			return "", fmt.Errorf("events: field %s: %w", name, err)
		}
	}
	b.WriteByte('}')
	return Extra(b.String()), nil
}

// appendTo adds e's members to obj, the JSON object of the known fields.
func (e Extra) appendTo(obj []byte) []byte {
	if e == "" || len(obj) < 2 {
		return obj
	}
	out := obj[:len(obj)-1] // without its '}'
	if len(out) > 1 {
		out = append(out, ',')
	}
	return append(out, e[1:]...)
}

// field is one member a type names: its JSON name and where it decodes to.
type field struct {
	name string
	dst  any
}

// decodeObject decodes the JSON object b into known, matching names
// exactly as the schemas do (encoding/json would also take "EventId" for
// eventId, which the schema calls an unknown field), and returns the
// members it does not name as an Extra. plain is the value known's
// destinations belong to, as a type without JSON methods: an object whose
// members are all named exactly (every event StreamOps produces, most it
// consumes) decodes straight into it, as fast as encoding/json does; only
// an object with other members pays for decoding through a map.
func decodeObject(b []byte, what string, plain any, known ...field) (Extra, error) {
	if onlyNamed(b, known) {
		if err := json.Unmarshal(b, plain); err != nil {
			return "", fmt.Errorf("events: decode %s: %w", what, err)
		}
		return "", nil
	}
	return decodeMembers(b, what, known...)
}

// decodeMembers is decodeObject through a map of the object's members.
func decodeMembers(b []byte, what string, known ...field) (Extra, error) {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(b, &members); err != nil {
		return "", fmt.Errorf("events: decode %s: %w", what, err)
	}
	for _, f := range known {
		raw, ok := members[f.name]
		if !ok {
			continue
		}
		delete(members, f.name)
		if err := json.Unmarshal(raw, f.dst); err != nil {
			return "", fmt.Errorf("events: decode %s.%s: %w", what, f.name, err)
		}
	}
	return ExtraOf(members)
}

// onlyNamed reports whether b is a JSON object every member of which has
// one of known's names, spelt exactly and without escapes, by scanning its
// top-level names without decoding anything. Then encoding/json's struct
// decoding (which matches names case-insensitively too) reads it as
// decodeMembers does. Its answer matters only for valid JSON: the decoder
// that follows refuses anything else. An escaped name answers false (the
// map decodes it, unescaped), so false is always safe.
func onlyNamed(b []byte, known []field) bool {
	i := jsonbody.SkipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return false
	}
	i = jsonbody.SkipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return true
	}
	for i < len(b) && b[i] == '"' {
		end := i + 1
		for end < len(b) && b[end] != '"' && b[end] != '\\' {
			end++
		}
		if end >= len(b) || b[end] != '"' || !named(b[i+1:end], known) {
			return false
		}
		i = jsonbody.SkipSpace(b, end+1)
		if i >= len(b) || b[i] != ':' {
			return false
		}
		if i = jsonbody.SkipValue(b, jsonbody.SkipSpace(b, i+1)); i < 0 {
			return false
		}
		i = jsonbody.SkipSpace(b, i)
		if i >= len(b) {
			return false
		}
		switch b[i] {
		case '}':
			return true
		case ',':
			i = jsonbody.SkipSpace(b, i+1)
		default:
			return false
		}
	}
	return false
}

// named reports whether name is one of known's.
func named(name []byte, known []field) bool {
	for _, f := range known {
		if string(name) == f.name {
			return true
		}
	}
	return false
}
