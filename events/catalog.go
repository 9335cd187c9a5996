package events

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// exampleFiles are one example event per type (<eventType>.json), the
// seed-003 examples of testdata/events embedded so a deployed function can
// show and send them; a test holds them equal to those fixtures.
//
//go:embed examples/*.json
var exampleFiles embed.FS

// Example is the example event of type t as the catalog shows it: a seed
// 003 example that Validate accepts. An unknown type is an error.
func Example(t Type) (json.RawMessage, error) {
	if !t.Known() {
		return nil, fmt.Errorf("events: %q is not an event type of the catalog", t)
	}
	raw, err := exampleFiles.ReadFile("examples/" + string(t) + ".json")
	if err != nil {
		return nil, fmt.Errorf("events: example of %s: %w", t, err)
	}
	return compact(raw)
}

// Schema is the JSON Schema (draft 2020-12) of event type t as StreamOps
// produces it (Produced), as one self-contained document: the schema
// files it refers to (common.json, mode.json as produce mode fills it in)
// are bundled under its $defs as embedded resources with their own $id,
// the way draft 2020-12 bundles a compound schema, so its $refs resolve
// within it and any 2020-12 validator compiles it without fetching
// anything. An unknown type is an error.
func Schema(t Type) (json.RawMessage, error) {
	if !t.Known() {
		return nil, fmt.Errorf("events: %q is not an event type of the catalog", t)
	}
	root, err := schemaDoc(string(t) + ".json")
	if err != nil {
		return nil, err
	}
	defs, _ := root["$defs"].(map[string]any)
	if defs == nil {
		defs = map[string]any{}
	}
	seen := map[string]bool{string(t) + ".json": true}
	queue := refFiles(root)
	for len(queue) > 0 {
		name := queue[0]
		queue = queue[1:]
		if seen[name] {
			continue
		}
		seen[name] = true
		doc, err := schemaDoc(name)
		if err != nil {
			return nil, err
		}
		delete(doc, "$schema") // the root's dialect applies
		defs[name] = doc
		queue = append(queue, refFiles(doc)...)
	}
	root["$defs"] = defs
	out, err := json.Marshal(root)
	if err != nil {
		return nil, fmt.Errorf("events: encode the schema of %s: %w", t, err)
	}
	return out, nil
}

// schemaDoc is the embedded schema file name (a file of schemas/, or
// mode.json for schemas/mode/produce.json) as a JSON object with its $id
// set to SchemaBaseURL + name, produce mode's task types filled in.
func schemaDoc(name string) (map[string]any, error) {
	file := "schemas/" + name
	if name == "mode.json" {
		file = "schemas/mode/" + Produced.String() + ".json"
	}
	raw, err := schemaFiles.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("events: read %s: %w", file, err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("events: parse %s: %w", file, err)
	}
	obj, ok := doc.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("events: %s is not a JSON object", file)
	}
	obj["$id"] = SchemaBaseURL + name
	if name == "mode.json" {
		fillTaskTypes(obj)
	}
	return obj, nil
}

// refFiles are the schema files doc's $refs name (the part before #),
// sorted, each once.
func refFiles(doc any) []string {
	set := map[string]bool{}
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				if s, ok := x.(string); ok && k == "$ref" {
					if file, _, _ := strings.Cut(s, "#"); file != "" {
						set[path.Base(file)] = true
					}
					continue
				}
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(doc)
	out := make([]string, 0, len(set))
	for f := range set {
		out = append(out, f)
	}
	sort.Strings(out)
	return out
}

// compact is raw without insignificant white space.
func compact(raw []byte) (json.RawMessage, error) {
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return nil, fmt.Errorf("events: compact: %w", err)
	}
	return buf.Bytes(), nil
}
