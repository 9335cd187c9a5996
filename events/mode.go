package events

import (
	"errors"
	"strings"
)

// Mode is the side of seed 003's evolution rule ("adding fields: always
// optional") an event is checked for: liberal consumers, strict
// producers. It is the one place the two differ; the schemas refer what
// differs to mode.json, which each mode fills in (schemas/mode/*.json).
type Mode int

const (
	// Produced checks an event StreamOps builds (New, and the API's own
	// submissions): the envelope and its metadata are closed, the eventId
	// is one StreamOps minted (evt-{uuid}), and a task's type is one of
	// TaskTypes. It is what Validate and Decode apply.
	Produced Mode = iota
	// Consumed checks an event read from a topic, whoever wrote it: fields
	// this version does not name are allowed (and kept by Envelope and
	// Metadata), an eventId is any id (MaxIDLength), a task's type is any
	// name (a type without an executor fails the task, not the record).
	// What stays refused is what no 1.x producer writes: undecodable JSON,
	// a required field missing, a value of the wrong type, another major
	// schemaVersion.
	Consumed
)

// String names the mode as its schema file does: "produce" or "consume".
func (m Mode) String() string {
	if m == Consumed {
		return "consume"
	}
	return "produce"
}

// MaxIDLength is the longest id (eventId, workflowId, taskId, replayOf) an
// event may carry, in characters: a consumed id is any non-empty string up
// to it, which keeps it a usable Kafka key and MongoDB _id.
const MaxIDLength = 256

// RuleMajorVersion is the ValidationError rule of an event whose
// schemaVersion has another major version than SchemaVersion's.
const RuleMajorVersion = "majorVersion"

// ErrUnsupportedVersion matches, under errors.Is, the ValidationError of an
// event whose schemaVersion is of another major version: a 2.x producer
// may have changed what a field means, so it is refused (and a consumer
// dead-letters it as unsupported-schema-version) rather than guessed at.
var ErrUnsupportedVersion = errors.New("events: unsupported schema version")

// Validate checks a whole event against the schema of its eventType as
// mode m reads it; see Validate.
func (m Mode) Validate(raw []byte) error {
	_, err := validate(m, raw)
	return err
}

// ValidateValue is Validate, also returning the event as the validator
// decoded it (objects as map[string]any, numbers as json.Number), for a
// caller that checks more of it without decoding it again.
func (m Mode) ValidateValue(raw []byte) (any, error) {
	return validate(m, raw)
}

// checkMajor refuses a schemaVersion of another major version than
// SchemaVersion's, before the schema is applied: such an event is refused
// for its version, whatever else it carries. A schemaVersion that is no
// version at all is left to the schema's pattern.
func checkMajor(t Type, doc any) error {
	obj, _ := doc.(map[string]any)
	v, ok := obj["schemaVersion"].(string)
	if !ok {
		return nil
	}
	major, _, _ := strings.Cut(v, ".")
	want, _, _ := strings.Cut(SchemaVersion, ".")
	if major == "" || strings.Trim(major, "0123456789") != "" || major == want {
		return nil
	}
	return &ValidationError{EventType: t, Path: "/schemaVersion", Rule: RuleMajorVersion,
		Message: "major version is not " + want + "; this version of StreamOps reads " + want + ".x events only"}
}
