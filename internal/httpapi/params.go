package httpapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
	"sync"
)

// AllValues is the value of a status filter that means no filter: what
// `streamops dead-letters -status all` sends.
const AllValues = "all"

// enumParam is a query parameter whose values the document enumerates.
type enumParam struct {
	// Name is the parameter's name.
	Name string
	// Values are the values it may take, in the document's order.
	Values []string
	// List: the parameter is an array, comma-separated or repeated
	// (event_types=a,b), each item one of Values.
	List bool
}

// queryEnums are the enumerated query parameters of every operation, keyed
// by its route pattern ("GET /api/dead-letters"), read from OpenAPIDocument:
// the document the API serves is the one list of allowed values, so what
// it says and what the handlers accept cannot drift apart. checkQueryEnums
// enforces them on every authenticated route, before the handler runs.
func queryEnums() map[string][]enumParam {
	queryEnumsOnce.Do(func() { queryEnumsTable = mustReadQueryEnums(OpenAPIDocument()) })
	return queryEnumsTable
}

var (
	queryEnumsOnce  sync.Once
	queryEnumsTable map[string][]enumParam
)

// openAPIShape is as much of an OpenAPI 3.1 document as the enum table
// needs.
type openAPIShape struct {
	Paths      map[string]map[string]json.RawMessage `json:"paths"`
	Components struct {
		Parameters map[string]openAPIParam  `json:"parameters"`
		Schemas    map[string]openAPISchema `json:"schemas"`
	} `json:"components"`
}

type openAPIParam struct {
	Ref    string        `json:"$ref"`
	Name   string        `json:"name"`
	In     string        `json:"in"`
	Schema openAPISchema `json:"schema"`
}

type openAPISchema struct {
	Ref   string          `json:"$ref"`
	Type  json.RawMessage `json:"type"`
	Enum  []string        `json:"enum"`
	Items *openAPISchema  `json:"items"`
}

// resolve follows a schema's $ref into components.schemas.
func (d *openAPIShape) resolve(s openAPISchema) (openAPISchema, error) {
	for range 8 {
		if s.Ref == "" {
			return s, nil
		}
		name, ok := strings.CutPrefix(s.Ref, "#/components/schemas/")
		next, found := d.Components.Schemas[name]
		if !ok || !found {
			return s, fmt.Errorf("unresolvable schema $ref %q", s.Ref)
		}
		s = next
	}
	return s, fmt.Errorf("schema $ref chain too long at %q", s.Ref)
}

// schemaEnum returns the values the document's components.schemas.<name>
// enumerates ($refs followed); nil when it enumerates none.
func schemaEnum(name string) []string {
	var d openAPIShape
	if err := json.Unmarshal(OpenAPIDocument(), &d); err != nil {
		return nil
	}
	s, err := d.resolve(openAPISchema{Ref: "#/components/schemas/" + name})
	if err != nil {
		return nil
	}
	return s.Enum
}

// readQueryEnums lists the enumerated query parameters of each operation
// of doc, operation and path-level parameters alike, $refs resolved.
func readQueryEnums(doc []byte) (map[string][]enumParam, error) {
	var d openAPIShape
	if err := json.Unmarshal(doc, &d); err != nil {
		return nil, fmt.Errorf("httpapi: OpenAPI document: %w", err)
	}
	out := map[string][]enumParam{}
	for path, item := range d.Paths {
		var shared []openAPIParam
		if raw, ok := item["parameters"]; ok {
			if err := json.Unmarshal(raw, &shared); err != nil {
				return nil, fmt.Errorf("httpapi: OpenAPI document: %s parameters: %w", path, err)
			}
		}
		for method, raw := range item {
			if method == "parameters" || !slices.Contains([]string{"get", "put", "post", "delete", "patch", "head", "options"}, method) {
				continue
			}
			var op struct {
				Parameters []openAPIParam `json:"parameters"`
			}
			if err := json.Unmarshal(raw, &op); err != nil {
				return nil, fmt.Errorf("httpapi: OpenAPI document: %s %s: %w", method, path, err)
			}
			route := strings.ToUpper(method) + " " + path
			for _, p := range append(slices.Clone(shared), op.Parameters...) {
				if p.Ref != "" {
					name, _ := strings.CutPrefix(p.Ref, "#/components/parameters/")
					ref, ok := d.Components.Parameters[name]
					if !ok {
						return nil, fmt.Errorf("httpapi: OpenAPI document: %s: unresolvable parameter $ref %q", route, p.Ref)
					}
					p = ref
				}
				if p.In != "query" {
					continue
				}
				s, err := d.resolve(p.Schema)
				if err != nil {
					return nil, fmt.Errorf("httpapi: OpenAPI document: %s %s: %w", route, p.Name, err)
				}
				ep := enumParam{Name: p.Name, Values: s.Enum}
				if s.Items != nil {
					items, err := d.resolve(*s.Items)
					if err != nil {
						return nil, fmt.Errorf("httpapi: OpenAPI document: %s %s: %w", route, p.Name, err)
					}
					ep.Values, ep.List = items.Enum, true
				}
				if len(ep.Values) > 0 {
					out[route] = append(out[route], ep)
				}
			}
		}
	}
	for route := range out {
		sort.Slice(out[route], func(i, j int) bool { return out[route][i].Name < out[route][j].Name })
	}
	return out, nil
}

func mustReadQueryEnums(doc []byte) map[string][]enumParam {
	enums, err := readQueryEnums(doc)
	if err != nil {
		panic(err) // the embedded document is fixed at build time, and tested
	}
	return enums
}

// checkQueryEnums refuses a request whose enumerated query parameters
// (queryEnums of its route) take a value the document does not list, or
// (a single-valued one) are given more than once: a *paramError naming the
// parameter and the allowed values, 400 invalid_parameter.
func checkQueryEnums(r *http.Request) error {
	params := queryEnums()[r.Pattern]
	if len(params) == 0 {
		return nil
	}
	q := r.URL.Query()
	for _, p := range params {
		given, ok := q[p.Name]
		if !ok {
			continue
		}
		if p.List {
			given = list(q, p.Name)
		} else if len(given) > 1 {
			return &paramError{Param: p.Name, Allowed: p.Values,
				Reason: fmt.Sprintf("is given %d times; give it once, one of %s", len(given), strings.Join(p.Values, ", "))}
		}
		if err := checkEnum(p.Name, given, p.Values); err != nil {
			return err
		}
	}
	return nil
}

// checkEnum refuses the first of values that allowed does not list.
func checkEnum(name string, values, allowed []string) error {
	for _, v := range values {
		if !slices.Contains(allowed, v) {
			return &paramError{Param: name, Allowed: allowed,
				Reason: fmt.Sprintf("must be one of %s, got %q", strings.Join(allowed, ", "), v)}
		}
	}
	return nil
}

// filterValue reads a filter parameter: AllValues and absence both mean
// no filter ("").
func filterValue(q url.Values, name string) string {
	if v := q.Get(name); v != AllValues {
		return v
	}
	return ""
}
