package subscribe

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/256dpi/lungo/bsonkit"
	"github.com/256dpi/lungo/mongokit"
	"go.mongodb.org/mongo-driver/bson"

	"github.com/streamops/streamops/events"
)

// Operators are the query operators a filter may use, in the order the
// documentation lists them; implicit equality ({"payload.name": "x"}) is
// $eq. Anything else is refused at Compile, so a filter never depends on
// an operator the MongoDB matcher knows but the documentation does not
// promise.
var Operators = []string{"$eq", "$ne", "$gt", "$gte", "$lt", "$lte", "$in", "$nin", "$exists", "$and", "$or"}

// topLevel are the operators that combine whole queries; the others
// apply to one field.
var topLevel = map[string]bool{"$and": true, "$or": true}

// matchContext is mongokit's query context restricted to Operators: the
// matcher itself refuses what Compile let through by mistake.
var matchContext = mongokit.Context{TopLevel: map[string]mongokit.Operator{}, Expression: map[string]mongokit.Operator{}}

func init() {
	for _, op := range Operators {
		if topLevel[op] {
			matchContext.TopLevel[op] = mongokit.TopLevelQueryOperators[op]
		} else {
			matchContext.Expression[op] = mongokit.ExpressionQueryOperators[op]
		}
	}
	matchContext.Expression[""] = mongokit.ExpressionQueryOperators[""]
}

// Error is why a subscription does not compile: Field is "eventTypes[i]"
// or "filter" (with the path inside it), Reason says what is wrong.
type Error struct {
	Field  string
	Reason string
}

func (e *Error) Error() string { return "subscribe: " + e.Field + ": " + e.Reason }

// Matcher is a compiled Subscription: which events it selects.
type Matcher struct {
	all      bool
	exact    map[events.Type]bool
	prefixes []string
	filter   bson.D // nil: no filter
}

// Compile checks s and prepares it for Match: every event type must be
// one of the catalog's (events.Types), a prefix ending in ".*" that
// covers at least one of them, or "*"; the filter must be a JSON object
// using only Operators.
func Compile(s Subscription) (*Matcher, error) {
	if len(s.EventTypes) == 0 {
		return nil, &Error{Field: "eventTypes", Reason: "at least one event type is required (\"*\" for every type)"}
	}
	m := &Matcher{exact: map[events.Type]bool{}}
	for i, t := range s.EventTypes {
		field := fmt.Sprintf("eventTypes[%d]", i)
		switch {
		case t == "*":
			m.all = true
		case strings.HasSuffix(t, ".*"):
			prefix := strings.TrimSuffix(t, "*")
			if !slices.ContainsFunc(events.Types, func(k events.Type) bool { return strings.HasPrefix(string(k), prefix) }) {
				return nil, &Error{Field: field, Reason: fmt.Sprintf("%q covers no event type%s", t, nearNames(strings.TrimSuffix(prefix, ".")))}
			}
			m.prefixes = append(m.prefixes, prefix)
		case strings.Contains(t, "*"):
			return nil, &Error{Field: field, Reason: fmt.Sprintf("%q: a wildcard is allowed only as \"*\" or at the end after a dot (\"task.*\")", t)}
		case !events.Type(t).Known():
			return nil, &Error{Field: field, Reason: fmt.Sprintf("%q is not an event type%s", t, nearNames(t))}
		default:
			m.exact[events.Type(t)] = true
		}
	}
	if len(bytes.TrimSpace(s.Filter)) == 0 || string(bytes.TrimSpace(s.Filter)) == "null" {
		return m, nil
	}
	filter, err := parseFilter(s.Filter)
	if err != nil {
		return nil, err
	}
	if err := checkQuery(filter, ""); err != nil {
		return nil, err
	}
	// The matcher's own checks, on an empty event: what the walk above
	// missed shows here rather than at the first event.
	if err := mongokit.Process(matchContext, &bson.D{}, filter, "", true); err != nil && !errors.Is(err, mongokit.ErrNotMatched) {
		return nil, &Error{Field: "filter", Reason: err.Error()}
	}
	m.filter = filter
	return m, nil
}

// parseFilter reads the filter as MongoDB Extended JSON (relaxed), so a
// filter may compare with {"$date": …} and the like; it must be an object.
func parseFilter(raw json.RawMessage) (bson.D, error) {
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return nil, &Error{Field: "filter", Reason: "must be a JSON object (a MongoDB query such as {\"payload.name\": \"orders\"})"}
	}
	var d bson.D
	if err := bson.UnmarshalExtJSON(trimmed, false, &d); err != nil {
		return nil, &Error{Field: "filter", Reason: "not a valid query: " + err.Error()}
	}
	if d == nil {
		d = bson.D{}
	}
	return d, nil
}

// allowed is the list of Operators for an error message.
func allowed() string { return strings.Join(Operators, ", ") }

// checkQuery refuses a query (at path, "" for the filter itself) that uses
// anything but Operators or gives one of them the wrong kind of value.
func checkQuery(q bson.D, path string) error {
	for _, e := range q {
		at := joinPath(path, e.Key)
		if !strings.HasPrefix(e.Key, "$") {
			if err := checkCondition(e.Value, at); err != nil {
				return err
			}
			continue
		}
		if !topLevel[e.Key] {
			return unknownOperator(e.Key, at, "a query (beside field names)")
		}
		list, ok := e.Value.(bson.A)
		if !ok || len(list) == 0 {
			return &Error{Field: filterField(at), Reason: e.Key + " needs a non-empty array of queries"}
		}
		for i, sub := range list {
			d, ok := sub.(bson.D)
			if !ok {
				return &Error{Field: filterField(fmt.Sprintf("%s[%d]", at, i)), Reason: e.Key + " needs an array of query objects"}
			}
			if err := checkQuery(d, fmt.Sprintf("%s[%d]", at, i)); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkCondition checks the condition on one field: a value (implicit
// $eq) or an object of field operators.
func checkCondition(v any, at string) error {
	d, ok := v.(bson.D)
	if !ok || len(d) == 0 || !strings.HasPrefix(d[0].Key, "$") {
		return nil // equality with a value or a document
	}
	for _, e := range d {
		opAt := joinPath(at, e.Key)
		switch {
		case !strings.HasPrefix(e.Key, "$"):
			return &Error{Field: filterField(opAt), Reason: fmt.Sprintf("%q beside operators: an object either compares as a whole or lists operators (%s)", e.Key, allowed())}
		case topLevel[e.Key]:
			return &Error{Field: filterField(opAt), Reason: e.Key + " combines queries and cannot apply to a field; write {\"" + e.Key + "\": [{\"" + at + "\": …}, …]}"}
		case !slices.Contains(Operators, e.Key):
			return unknownOperator(e.Key, opAt, "a field")
		case e.Key == "$in" || e.Key == "$nin":
			if _, ok := e.Value.(bson.A); !ok {
				return &Error{Field: filterField(opAt), Reason: e.Key + " needs an array of values"}
			}
		}
	}
	return nil
}

// unknownOperator is the error of an operator outside Operators.
func unknownOperator(op, at, where string) error {
	return &Error{Field: filterField(at), Reason: fmt.Sprintf("operator %s is not allowed on %s; the allowed operators are %s", op, where, allowed())}
}

// filterField names a place in the filter for Error.Field.
func filterField(at string) string { return "filter." + at }

// joinPath is path.key, or key at the top.
func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// nearNames lists the catalog's types that look like t (sharing its first
// segment, or a few edits away), as ": did you mean a, b?", or the whole
// catalog when none does.
func nearNames(t string) string {
	head, _, _ := strings.Cut(t, ".")
	var near []string
	for _, k := range events.Types {
		name := string(k)
		kHead, _, _ := strings.Cut(name, ".")
		if kHead == head || editDistance(name, t) <= 3 {
			near = append(near, name)
		}
	}
	if len(near) == 0 {
		return "; the event types are " + strings.Join(events.TypeNames(), ", ")
	}
	return "; did you mean " + strings.Join(near, ", ") + "?"
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

// HasFilter says whether the subscription has a payload filter, beyond
// its event types.
func (m *Matcher) HasFilter() bool { return m.filter != nil }

// MatchesType says whether the subscription selects events of type t,
// whatever their payload.
func (m *Matcher) MatchesType(t events.Type) bool {
	if m.all || m.exact[t] {
		return true
	}
	for _, p := range m.prefixes {
		if strings.HasPrefix(string(t), p) {
			return true
		}
	}
	return false
}

// Match says whether env is selected: its type, then its envelope as JSON
// against the filter. An envelope that cannot be read as a document
// matches no filter.
func (m *Matcher) Match(env events.Envelope) bool {
	if !m.MatchesType(env.EventType) {
		return false
	}
	if m.filter == nil {
		return true
	}
	doc, err := DocumentOf(env)
	return err == nil && m.MatchDocument(env.EventType, doc)
}

// MatchDocument is Match for an event already converted by DocumentOf
// (once for every partner it is matched against).
func (m *Matcher) MatchDocument(t events.Type, doc Document) bool {
	if !m.MatchesType(t) {
		return false
	}
	if m.filter == nil {
		return true
	}
	// Any error but a mismatch is a value the filter cannot compare
	// with: not a match either.
	return mongokit.Process(matchContext, doc.d, m.filter, "", true) == nil
}

// Document is an event's envelope as the document a filter is evaluated
// against.
type Document struct {
	d bsonkit.Doc
}

// DocumentOf is env's JSON encoding (eventType, eventId, timestamp,
// payload, metadata) as a document. The JSON is read as plain JSON, not
// Extended JSON, so a payload key such as "$date" is a field like any
// other; numbers are integers when they are whole and fit 64 bits,
// doubles otherwise, and compare as MongoDB compares them (100 = 100.0).
func DocumentOf(env events.Envelope) (Document, error) {
	raw, err := json.Marshal(env)
	if err != nil {
		return Document{}, fmt.Errorf("subscribe: encode event %s: %w", env.EventID, err)
	}
	return DocumentOfJSON(raw)
}

// DocumentOfJSON is DocumentOf for an envelope's JSON as stored.
func DocumentOfJSON(raw []byte) (Document, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	v, err := plainValue(dec)
	if err != nil {
		return Document{}, fmt.Errorf("subscribe: event JSON: %w", err)
	}
	d, ok := v.(bson.D)
	if !ok {
		return Document{}, errors.New("subscribe: event JSON: not an object")
	}
	return Document{d: &d}, nil
}

// plainValue reads the next JSON value of dec as BSON: objects as bson.D
// in their order, arrays as bson.A.
func plainValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		if t == '[' {
			arr := bson.A{}
			for dec.More() {
				v, err := plainValue(dec)
				if err != nil {
					return nil, err
				}
				arr = append(arr, v)
			}
			_, err := dec.Token()
			return arr, err
		}
		doc := bson.D{}
		for dec.More() {
			key, err := dec.Token()
			if err != nil {
				return nil, err
			}
			v, err := plainValue(dec)
			if err != nil {
				return nil, err
			}
			doc = append(doc, bson.E{Key: key.(string), Value: v})
		}
		_, err := dec.Token()
		return doc, err
	case json.Number:
		if i, err := t.Int64(); err == nil {
			return i, nil
		}
		f, err := t.Float64()
		return f, err
	default:
		return t, nil // string, bool, nil
	}
}
