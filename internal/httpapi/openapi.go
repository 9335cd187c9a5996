package httpapi

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/provider"
)

// openAPITemplate is the OpenAPI document as written: complete but for
// the enums that have one list elsewhere, each written as the list's name
// (`"enum": "events.TaskTypes"`) and filled from derivedEnums.
//
//go:embed openapi.json
var openAPITemplate []byte

// derivedEnums are the lists the document's enums are taken from, by the
// name openapi.json writes in their place. Adding a value to one of these
// lists adds it to the document, and so to what the handlers accept.
var derivedEnums = map[string][]string{
	"events.Types":         events.TypeNames(),
	"events.TaskTypes":     events.TaskTypeNames(),
	"events.Steps":         events.Steps,
	"provider.SchemeNames": provider.SchemeNames(),
}

// OpenAPIDocument is the OpenAPI 3.1 description of every route:
// openapi.json with its derived enums filled in. Its enums are also the
// allowed values the handlers enforce (queryEnums). It is built on first
// use, so a function that serves no API route (the webhook) neither links
// the document nor spends its cold start on it.
func OpenAPIDocument() []byte {
	openAPI.once.Do(func() { openAPI.doc = mustFillEnums(openAPITemplate, derivedEnums) })
	return openAPI.doc
}

// openAPI holds OpenAPIDocument once built. A function, not a
// sync.OnceValue variable, so that nothing reaches the embedded document
// unless OpenAPIDocument is called.
var openAPI struct {
	once sync.Once
	doc  []byte
}

// enumSlot is an enum openapi.json leaves to a list: the line's indent and
// the list's name.
var enumSlot = regexp.MustCompile(`(?m)^([ \t]*)"enum": "([A-Za-z.]+)"`)

// fillEnums writes each enum slot of doc as the JSON array of its list,
// indented as the document's other arrays. A slot naming no list is an
// error.
func fillEnums(doc []byte, lists map[string][]string) ([]byte, error) {
	var missing []string
	out := enumSlot.ReplaceAllFunc(doc, func(slot []byte) []byte {
		m := enumSlot.FindSubmatch(slot)
		indent, name := string(m[1]), string(m[2])
		values, ok := lists[name]
		if !ok || len(values) == 0 {
			missing = append(missing, name)
			return slot
		}
		var b bytes.Buffer
		b.WriteString(indent + `"enum": [`)
		for i, v := range values {
			item, _ := json.Marshal(v)
			b.WriteString("\n" + indent + "  ")
			b.Write(item)
			if i < len(values)-1 {
				b.WriteByte(',')
			}
		}
		b.WriteString("\n" + indent + "]")
		return b.Bytes()
	})
	if len(missing) > 0 {
		return nil, fmt.Errorf("httpapi: openapi.json: no list for enum %s", strings.Join(missing, ", "))
	}
	return out, nil
}

func mustFillEnums(doc []byte, lists map[string][]string) []byte {
	out, err := fillEnums(doc, lists)
	if err != nil {
		panic(err) // the embedded document and the lists are fixed at build time, and tested
	}
	return out
}

// errNotAcceptable: the Accept header admits no JSON (406).
// ParameterDescription is the description openapi.json gives the shared
// parameter name (components.parameters), "" when it has none. The CLI
// uses it as the usage of a filter's flag, so a filter is described once.
func ParameterDescription(name string) string { return parameterDescriptions()[name] }

// parameterDescriptions are the descriptions of components.parameters by
// name, read from the document once.
var parameterDescriptions = sync.OnceValue(func() map[string]string {
	var doc struct {
		Components struct {
			Parameters map[string]struct {
				Description string `json:"description"`
			} `json:"parameters"`
		} `json:"components"`
	}
	out := map[string]string{}
	if err := json.Unmarshal(OpenAPIDocument(), &doc); err == nil {
		for name, p := range doc.Components.Parameters {
			out[name] = p.Description
		}
	}
	return out
})

var errNotAcceptable = errors.New("the OpenAPI document is JSON: send Accept: application/json (or */*), or no Accept header")

func (a *api) openAPI(w http.ResponseWriter, r *http.Request) {
	if !acceptsJSON(r.Header.Values("Accept")) {
		writeError(w, r, a.log, errNotAcceptable)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(OpenAPIDocument())
}

// acceptsJSON reports whether Accept headers admit the document: none (or
// blank), or a media range */*, application/*, application/json or
// application/openapi+json whose q is above 0.
func acceptsJSON(accept []string) bool {
	if strings.TrimSpace(strings.Join(accept, "")) == "" {
		return true
	}
	for _, h := range accept {
		for part := range strings.SplitSeq(h, ",") {
			mediaType, params, err := mime.ParseMediaType(strings.TrimSpace(part))
			if err != nil {
				continue
			}
			if q, ok := params["q"]; ok {
				if f, err := strconv.ParseFloat(q, 64); err != nil || f <= 0 {
					continue
				}
			}
			switch mediaType {
			case "*/*", "application/*", "application/json", "application/openapi+json":
				return true
			}
		}
	}
	return false
}
