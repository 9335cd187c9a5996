package jsonbody

import "fmt"

// MaxDepth is how deeply a JSON document from outside (a webhook body, an
// API request body) may nest objects and arrays. Real webhooks nest a
// handful of levels; MongoDB refuses a document nested past 100, and an
// accepted body is stored inside an event and a projection, a few levels
// deeper. Every recursive reader after the check (Redact, the store's BSON
// conversion, the schema validator) is bounded by it.
const MaxDepth = 64

// MaxEventDepth is how deeply a Kafka record's value (an event envelope)
// may nest: MaxDepth plus room for the envelope and payload fields an
// accepted body is carried in (payload.input, payload.data).
const MaxEventDepth = MaxDepth + 16

// DepthError is a document that nests objects and arrays deeper than
// Limit. It matches ErrInvalid.
type DepthError struct {
	// Limit is the deepest nesting admitted.
	Limit int
	// Offset is the byte at which the document went deeper.
	Offset int
}

func (e *DepthError) Error() string {
	return fmt.Sprintf("the JSON nests objects and arrays deeper than the limit of %d levels (at byte %d)", e.Limit, e.Offset)
}

// Is makes errors.Is(err, ErrInvalid) hold.
func (e *DepthError) Is(target error) bool { return target == ErrInvalid }

// CheckDepth reports a *DepthError when doc opens more than limit objects
// and arrays inside each other (brackets inside strings do not count). It
// reads the bytes once, allocates nothing and validates nothing else, so
// it can run before any parser whose cost or stack grows with nesting, on
// any input, and answer within the time it takes to read it.
func CheckDepth(doc []byte, limit int) error {
	depth := 0
	inString, escaped := false, false
	for i, c := range doc {
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '{', '[':
			if depth++; depth > limit {
				return &DepthError{Limit: limit, Offset: i}
			}
		case '}', ']':
			depth--
		}
	}
	return nil
}
