package events

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// Validate checks a whole event (envelope and payload) against the JSON
// Schema of its eventType, as an event StreamOps produces (Produced).
// Input that is not JSON, not an object, or whose eventType is missing or
// unknown is rejected too. Every rejection is a *ValidationError naming the
// field and the rule; a nil error means the event is valid. Consumers use
// Consumed.Validate.
func Validate(raw []byte) error {
	return Produced.Validate(raw)
}

// validate is Mode.Validate, also returning raw as the validator decoded
// it.
func validate(m Mode, raw []byte) (any, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, &ValidationError{Rule: "json", Message: notJSON(err)}
	}
	sets, err := compiledSchemas()
	if err != nil {
		return nil, err
	}
	set := sets[m]

	t := eventTypeOf(doc)
	if err := checkMajor(t, doc); err != nil {
		return nil, err
	}
	sch, known := set.byType[t]
	if !known {
		sch = set.catalog // explains why the document has no schema
	}
	err = sch.Validate(doc)
	var verr *jsonschema.ValidationError
	switch {
	case errors.As(err, &verr):
		return nil, explain(t, verr)
	case err != nil:
		return nil, fmt.Errorf("events: validate %s: %w", t, err)
	case !known:
		// The catalog knows a type that has no schema of its own: a bug in
		// this package, not in the event.
		return nil, fmt.Errorf("events: no schema for event type %q", t)
	}
	return doc, nil
}

// Decode validates raw as an event StreamOps produced (Produced) and
// returns it as an Envelope; see Mode.Decode.
func Decode(raw []byte) (Envelope, error) {
	return Produced.Decode(raw)
}

// Decode validates raw as mode m reads events and returns it as an
// Envelope, with the fields it does not name kept in Extra. A consumer
// (Consumed) rejects a poison record on its error, which is a
// *ValidationError naming the field when the event breaks its schema.
func (m Mode) Decode(raw []byte) (Envelope, error) {
	if err := m.Validate(raw); err != nil {
		return Envelope{}, err
	}
	var e Envelope
	if err := json.Unmarshal(raw, &e); err != nil {
		return Envelope{}, fmt.Errorf("events: decode envelope: %w", err)
	}
	return e, nil
}

// eventTypeOf is the eventType of a decoded document, "" when there is none.
func eventTypeOf(doc any) Type {
	obj, _ := doc.(map[string]any)
	s, _ := obj["eventType"].(string)
	return Type(s)
}

// notJSON describes a parse error without quoting the input.
func notJSON(err error) string {
	var syntax *json.SyntaxError
	switch {
	case errors.Is(err, io.EOF):
		return "input is empty"
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "input is not valid JSON: unexpected end of input"
	case errors.As(err, &syntax):
		return fmt.Sprintf("input is not valid JSON: %v (at byte %d)", syntax, syntax.Offset)
	}
	return "input is not valid JSON: " + err.Error()
}

// leaf is one rule broken at one place.
type leaf struct {
	path []string // JSON pointer tokens, unescaped
	kind jsonschema.ErrorKind
}

// explain turns the library's error tree into a ValidationError about its
// most specific leaf: the deepest path, then the first in pointer order so
// the choice does not depend on map iteration inside the validator.
func explain(t Type, verr *jsonschema.ValidationError) *ValidationError {
	leaves := collectLeaves(verr, nil)
	best := slices.MinFunc(leaves, func(a, b leaf) int {
		if len(a.path) != len(b.path) {
			return len(b.path) - len(a.path)
		}
		if c := strings.Compare(pointer(a.path), pointer(b.path)); c != 0 {
			return c
		}
		return strings.Compare(rule(a.kind), rule(b.kind))
	})
	return &ValidationError{EventType: t, Path: pointer(best.path), Rule: rule(best.kind), Message: describe(best.kind)}
}

// collectLeaves appends the errors of the tree that have no causes, with
// their path pointing at the field at fault: for a missing or unexpected
// property that is the property, not the object holding it.
func collectLeaves(e *jsonschema.ValidationError, out []leaf) []leaf {
	if len(e.Causes) > 0 {
		for _, c := range e.Causes {
			out = collectLeaves(c, out)
		}
		return out
	}
	p := slices.Clone(e.InstanceLocation)
	switch k := e.ErrorKind.(type) {
	case *kind.Required:
		p = append(p, k.Missing[0]) // the schema's first missing field
	case *kind.AdditionalProperties:
		p = append(p, slices.Min(k.Properties))
	}
	return append(out, leaf{path: p, kind: e.ErrorKind})
}

// pointerEscaper escapes a JSON pointer token (RFC 6901).
var pointerEscaper = strings.NewReplacer("~", "~0", "/", "~1")

// pointer renders path as a JSON pointer.
func pointer(path []string) string {
	var b strings.Builder
	for _, tok := range path {
		b.WriteByte('/')
		b.WriteString(pointerEscaper.Replace(tok))
	}
	return b.String()
}

// rule is the schema keyword a kind of error breaks. The only false
// schema of the catalog is Produced's mode.json unknownField, the
// additionalProperties of the envelope and metadata, so it is reported as
// that keyword.
func rule(k jsonschema.ErrorKind) string {
	if _, ok := k.(*kind.FalseSchema); ok {
		return "additionalProperties"
	}
	if kw := k.KeywordPath(); len(kw) > 0 {
		return kw[0]
	}
	return "schema"
}

var printer = message.NewPrinter(language.English)

// describe words a broken rule without quoting the offending value.
func describe(k jsonschema.ErrorKind) string {
	switch k := k.(type) {
	case *kind.Required:
		return "property is missing"
	case *kind.AdditionalProperties, *kind.FalseSchema:
		return "property is not allowed"
	case *kind.Enum:
		want := make([]string, len(k.Want))
		for i, w := range k.Want {
			want[i] = literal(w)
		}
		return "value must be one of " + strings.Join(want, ", ")
	case *kind.Const:
		return "value must be " + literal(k.Want)
	case *kind.Pattern:
		return "value does not match " + k.Want
	case *kind.Format:
		return fmt.Sprintf("value is not a valid %s: %s", k.Want, k.Err)
	case *kind.Type:
		return fmt.Sprintf("got %s, want %s", k.Got, strings.Join(k.Want, " or "))
	case *kind.MinLength:
		return fmt.Sprintf("must be at least %d characters long", k.Want)
	case *kind.MaxLength:
		return fmt.Sprintf("must be at most %d characters long", k.Want)
	case *kind.MinItems:
		return fmt.Sprintf("must have at least %d items", k.Want)
	case *kind.Minimum:
		return "must be at least " + k.Want.RatString()
	}
	return k.LocalizedString(printer)
}

// literal renders a schema constant as JSON: strings in double quotes.
func literal(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
