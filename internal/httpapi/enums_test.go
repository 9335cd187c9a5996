package httpapi

import (
	"encoding/json"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/provider"
	"github.com/streamops/streamops/internal/traceview"
)

// TestOpenAPIEnumsAreTheLists holds each enum of the served document that
// has one list elsewhere to that list: the task types, the workflow steps,
// the signature schemes and the event types. openapi.json names the list
// in the enum's place (derivedEnums), so adding a value to a list adds it
// here and to what the handlers accept.
func TestOpenAPIEnumsAreTheLists(t *testing.T) {
	var doc struct {
		Components struct {
			Schemas map[string]json.RawMessage `json:"schemas"`
		} `json:"components"`
	}
	require.NoError(t, json.Unmarshal(OpenAPIDocument(), &doc))
	enumAt := func(t *testing.T, schema string, path ...string) []string {
		var node any
		require.NoError(t, json.Unmarshal(doc.Components.Schemas[schema], &node))
		for _, key := range path {
			m, ok := node.(map[string]any)
			require.True(t, ok, "%s: no object at %s", schema, key)
			node = m[key]
		}
		var out []string
		for _, v := range node.([]any) {
			out = append(out, v.(string))
		}
		return out
	}
	var eventTypes []string
	for _, typ := range events.Types {
		eventTypes = append(eventTypes, string(typ))
	}
	for _, tt := range []struct {
		schema string
		path   []string
		want   []string
	}{
		{"TaskRequest", []string{"properties", "type", "enum"}, events.TaskTypeNames()},
		{"Task", []string{"properties", "type", "enum"}, events.TaskTypeNames()},
		{"WorkflowRequest", []string{"properties", "steps", "items", "enum"}, events.Steps},
		{"PartnerWebhook", []string{"properties", "signatureScheme", "enum"}, provider.SchemeNames()},
		{"EventType", []string{"enum"}, eventTypes},
		{"TraceNode", []string{"properties", "kind", "enum"}, traceview.Kinds()},
	} {
		t.Run(tt.schema+"/"+strings.Join(tt.path, "/"), func(t *testing.T) {
			assert.Equal(t, tt.want, enumAt(t, tt.schema, tt.path...))
		})
	}
	assert.NotContains(t, string(OpenAPIDocument()), `"enum": "`, "every enum slot of openapi.json is filled")
}

// TestOpenAPIEnumSlotsNameAList: a slot naming a list derivedEnums does not
// have is an error naming it, not a document with a string for an enum.
func TestOpenAPIEnumSlotsNameAList(t *testing.T) {
	doc := []byte("{\n  \"a\": {\n    \"enum\": \"events.Steps\"\n  },\n  \"b\": {\n    \"enum\": \"events.Colours\"\n  }\n}")
	_, err := fillEnums(doc, derivedEnums)
	assert.EqualError(t, err, "httpapi: openapi.json: no list for enum events.Colours")

	out, err := fillEnums(doc[:strings.Index(string(doc), ",\n  \"b\"")], map[string][]string{"events.Steps": {"x", "y"}})
	require.NoError(t, err)
	assert.Equal(t, "{\n  \"a\": {\n    \"enum\": [\n      \"x\",\n      \"y\"\n    ]\n  }", string(out))
	for name := range derivedEnums {
		assert.Contains(t, string(openAPITemplate), `"enum": "`+name+`"`, "openapi.json uses the list %s", name)
	}
}

// TestFilterParametersAreOneList holds the OpenAPI document to
// store.ReplayFilter's fields (filterParams): the query parameters of the
// filtering routes and the replay body's filter name exactly its JSON
// fields, so a field added to the filter without its parameter in
// openapi.json fails here.
func TestFilterParametersAreOneList(t *testing.T) {
	var want []string
	for _, p := range filterParams {
		want = append(want, p.name)
	}
	var doc struct {
		Paths map[string]map[string]struct {
			Parameters []struct {
				Ref string `json:"$ref"`
			} `json:"parameters"`
		} `json:"paths"`
		Components struct {
			Parameters map[string]struct {
				Name string `json:"name"`
				In   string `json:"in"`
			} `json:"parameters"`
			Schemas struct {
				ReplayFilter struct {
					Properties map[string]json.RawMessage `json:"properties"`
				} `json:"ReplayFilter"`
			} `json:"schemas"`
		} `json:"components"`
	}
	require.NoError(t, json.Unmarshal(OpenAPIDocument(), &doc))
	for _, tt := range []struct {
		path  string
		other []string // the route's query parameters that are not the filter's (headers do not count)
	}{
		{"/api/events", []string{"limit", "cursor"}},
		{"/api/events/export", []string{"format"}},
	} {
		t.Run("GET "+tt.path, func(t *testing.T) {
			var got []string
			for _, p := range doc.Paths[tt.path]["get"].Parameters {
				name, ok := strings.CutPrefix(p.Ref, "#/components/parameters/")
				if !ok {
					continue // an inline parameter is the route's own
				}
				if p := doc.Components.Parameters[name]; p.In == "query" && !slices.Contains(tt.other, p.Name) {
					got = append(got, p.Name)
				}
			}
			assert.Equal(t, want, got, "the filter's parameters, in store.ReplayFilter's order")
		})
	}
	t.Run("ReplayFilter body", func(t *testing.T) {
		assert.ElementsMatch(t, want, slices.Collect(maps.Keys(doc.Components.Schemas.ReplayFilter.Properties)))
	})
}

// TestWebhookSignatureHeadersAreDocumented holds POST /webhooks/{provider}
// of openapi.json to the signature schemes: every header a scheme's sender
// sets (provider.Sign) is one of the operation's header parameters, so a
// scheme added to the table without its headers documented fails here,
// naming them. A scheme that cannot be configured by its name alone (hmac)
// reads the provider's own header, which the document cannot name.
func TestWebhookSignatureHeadersAreDocumented(t *testing.T) {
	var doc struct {
		Paths map[string]map[string]struct {
			Parameters []struct {
				Name string `json:"name"`
				In   string `json:"in"`
			} `json:"parameters"`
		} `json:"paths"`
	}
	require.NoError(t, json.Unmarshal(OpenAPIDocument(), &doc))
	documented := map[string]bool{}
	for _, p := range doc.Paths["/webhooks/{provider}"]["post"].Parameters {
		if p.In == "header" {
			documented[http.CanonicalHeaderKey(p.Name)] = true
		}
	}
	require.NotEmpty(t, documented)
	for _, name := range provider.SchemeNames() {
		t.Run(name, func(t *testing.T) {
			reg, err := provider.NewRegistry(provider.Config{Providers: []provider.Provider{{Name: "p", Signature: provider.Signature{Scheme: provider.Scheme(name)}}}})
			if err != nil {
				assert.ErrorContains(t, err, "signature.", "only a scheme that needs its own options is left out")
				return
			}
			p, _ := reg.Provider("p")
			h, err := p.Sign([]byte(`{"id":"evt_1","type":"a.b"}`), "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", provider.SignOptions{Now: time.Now(), ID: "evt_1", EventType: "a.b"})
			require.NoError(t, err)
			require.NotEmpty(t, h)
			for header := range h {
				if http.CanonicalHeaderKey(header) == "Content-Type" {
					continue // OpenAPI documents it as the requestBody's media types, never as a parameter
				}
				assert.True(t, documented[http.CanonicalHeaderKey(header)],
					"%s: header %s is not a parameter of POST /webhooks/{provider} in openapi.json", name, header)
			}
		})
	}
}
