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
// common.json with the shared $defs, catalog.json that knows the types, and
// the two modes (mode/produce.json, mode/consume.json), one of which each
// compiled set registers as mode.json.
//
//go:embed schemas/*.json schemas/mode/*.json
var schemaFiles embed.FS

// schemaSet is the catalog compiled for one Mode.
type schemaSet struct {
	// catalog only checks that the document is an object with a known
	// eventType; Validate uses it to explain documents it cannot dispatch.
	catalog *jsonschema.Schema
	byType  map[Type]*jsonschema.Schema
}

// compiledSchemas compiles the embedded schemas once per mode, on first
// use.
var compiledSchemas = sync.OnceValues(func() ([2]*schemaSet, error) {
	var sets [2]*schemaSet
	for _, m := range []Mode{Produced, Consumed} {
		set, err := compileSchemas(m)
		if err != nil {
			return sets, err
		}
		sets[m] = set
	}
	return sets, nil
})

// modeBase is where the schemas of mode m are registered: SchemaBaseURL
// for Produced (the $ids the files carry), a sibling for Consumed, so the
// relative mode.json of each set is its own.
func modeBase(m Mode) string {
	if m == Consumed {
		return SchemaBaseURL + "consume/"
	}
	return SchemaBaseURL
}

func compileSchemas(m Mode) (*schemaSet, error) {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	c.RegisterFormat(&jsonschema.Format{Name: "date-time", Validate: validateDateTime})

	base := modeBase(m)
	names, err := fs.Glob(schemaFiles, "schemas/*.json")
	if err != nil {
		return nil, fmt.Errorf("events: list schemas: %w", err)
	}
	urls := make(map[string]string, len(names)+1)
	for _, name := range names {
		urls[name] = base + path.Base(name)
	}
	urls["schemas/mode/"+m.String()+".json"] = base + "mode.json"
	for name, url := range urls {
		raw, err := schemaFiles.ReadFile(name)
		if err != nil {
			return nil, fmt.Errorf("events: read %s: %w", name, err)
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
		if err != nil {
			return nil, fmt.Errorf("events: parse %s: %w", name, err)
		}
		if obj, ok := doc.(map[string]any); ok && obj["$id"] != nil {
			obj["$id"] = url
		}
		if m == Produced {
			fillTaskTypes(doc)
		}
		if err := c.AddResource(url, doc); err != nil {
			return nil, fmt.Errorf("events: add %s: %w", name, err)
		}
	}

	set := &schemaSet{byType: make(map[Type]*jsonschema.Schema, len(Types))}
	if set.catalog, err = c.Compile(base + "catalog.json"); err != nil {
		return nil, fmt.Errorf("events: compile catalog schema: %w", err)
	}
	for _, t := range Types {
		sch, err := c.Compile(base + string(t) + ".json")
		if err != nil {
			return nil, fmt.Errorf("events: compile %s schema: %w", t, err)
		}
		set.byType[t] = sch
	}
	return set, nil
}

// fillTaskTypes gives the taskType definition of produce mode's schema
// (schemas/mode/produce.json, which has none of its own) the enum of
// TaskTypes, so the list is the one place a task type is added and a
// producer still keeps to it.
func fillTaskTypes(doc any) {
	obj, _ := doc.(map[string]any)
	defs, _ := obj["$defs"].(map[string]any)
	if def, ok := defs["taskType"].(map[string]any); ok {
		enum := make([]any, len(TaskTypes))
		for i, t := range TaskTypes {
			enum[i] = string(t)
		}
		def["enum"] = enum
	}
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
