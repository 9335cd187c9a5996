package events

import (
	"errors"
	"fmt"
)

// ErrInvalid matches every *ValidationError under errors.Is, for callers that
// only need "reject it" (an HTTP 400, a poison record) and not the details.
var ErrInvalid = errors.New("events: invalid event")

// ValidationError says why an event was rejected: which field broke which
// rule of its event type's schema. Validate and Decode return it; get it with
// errors.As.
type ValidationError struct {
	// EventType is the document's eventType as found, possibly unknown or "".
	EventType Type
	// Path is the JSON pointer of the offending field, e.g.
	// "/payload/priority"; for a missing field it names the field itself.
	// It is "" when the document as a whole is at fault.
	Path string
	// Rule is the JSON Schema keyword broken ("required", "enum",
	// "pattern", "format", "type", "const", "additionalProperties",
	// "minimum", "minLength", …), "json" when the input is not JSON, or
	// RuleMajorVersion for a schemaVersion of another major version.
	Rule string
	// Message explains the rule in words. It never quotes the offending
	// value, so it is safe to log whatever the payload holds.
	Message string
}

// Error reads "events: <eventType>: <path>: <rule>: <message>".
func (e *ValidationError) Error() string {
	where := e.Path
	if where == "" {
		where = "(root)"
	}
	if e.EventType == "" {
		return fmt.Sprintf("events: %s: %s: %s", where, e.Rule, e.Message)
	}
	return fmt.Sprintf("events: %s: %s: %s: %s", e.EventType, where, e.Rule, e.Message)
}

// Is reports whether target is ErrInvalid, or ErrUnsupportedVersion for a
// schemaVersion of another major version.
func (e *ValidationError) Is(target error) bool {
	return target == ErrInvalid || target == ErrUnsupportedVersion && e.Rule == RuleMajorVersion
}
