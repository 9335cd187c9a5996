package events

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
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
// members it does not name as an Extra.
func decodeObject(b []byte, what string, known ...field) (Extra, error) {
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
