package events

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sync"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// SchemaBaseURL is the base of every embedded schema's $id: the schema of
// event type t is SchemaBaseURL + t + ".json". Ids only name; nothing is
// fetched from them.
const SchemaBaseURL = "https://github.com/streamops/streamops/events/schemas/"

// schemaFiles are the JSON Schemas (draft 2020-12): one per event type,
// common.json with the shared $defs, and catalog.json that knows the types.
//
//go:embed schemas/*.json
var schemaFiles embed.FS

// schemaSet is the compiled catalog.
type schemaSet struct {
	// catalog only checks that the document is an object with a known
	// eventType; Validate uses it to explain documents it cannot dispatch.
	catalog *jsonschema.Schema
	byType  map[Type]*jsonschema.Schema
}

// compiledSchemas compiles the embedded schemas once, on first use.
var compiledSchemas = sync.OnceValues(compileSchemas)

func compileSchemas() (*schemaSet, error) {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	c.RegisterFormat(&jsonschema.Format{Name: "date-time", Validate: validateDateTime})

	names, err := fs.Glob(schemaFiles, "schemas/*.json")
	if err != nil {
		return nil, fmt.Errorf("events: list schemas: %w", err)
	}
	for _, name := range names {
		raw, err := schemaFiles.ReadFile(name)
		if err != nil {
			return nil, fmt.Errorf("events: read %s: %w", name, err)
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
		if err != nil {
			return nil, fmt.Errorf("events: parse %s: %w", name, err)
		}
		if err := c.AddResource(SchemaBaseURL+path.Base(name), doc); err != nil {
			return nil, fmt.Errorf("events: add %s: %w", name, err)
		}
	}

	set := &schemaSet{byType: make(map[Type]*jsonschema.Schema, len(Types))}
	if set.catalog, err = c.Compile(SchemaBaseURL + "catalog.json"); err != nil {
		return nil, fmt.Errorf("events: compile catalog schema: %w", err)
	}
	for _, t := range Types {
		sch, err := c.Compile(SchemaBaseURL + string(t) + ".json")
		if err != nil {
			return nil, fmt.Errorf("events: compile %s schema: %w", t, err)
		}
		set.byType[t] = sch
	}
	return set, nil
}

// validateDateTime makes the "date-time" format mean exactly what
// Time.UnmarshalJSON parses (RFC 3339 as Go reads it: upper-case T and Z, no
// leap second), so an event that validates always decodes.
func validateDateTime(v any) error {
	s, ok := v.(string)
	if !ok {
		return nil // not a string: the type keyword reports it
	}
	if _, err := time.Parse(time.RFC3339Nano, s); err != nil {
		return errors.New("want ISO 8601 like 2026-01-04T01:09:27.123Z")
	}
	return nil
}
