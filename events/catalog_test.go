package events_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/events"
)

// compileAlone compiles a catalog schema with nothing else registered and
// no loader that could fetch: it compiles only if it is self-contained.
func compileAlone(t *testing.T, typ events.Type, schema []byte) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	require.NoError(t, err)
	c := jsonschema.NewCompiler()
	c.UseLoader(refuseLoader{})
	url := "urn:catalog:" + string(typ)
	require.NoError(t, c.AddResource(url, doc))
	sch, err := c.Compile(url)
	require.NoError(t, err)
	return sch
}

// refuseLoader fails every fetch: a schema needing one is not self-contained.
type refuseLoader struct{}

func (refuseLoader) Load(url string) (any, error) {
	return nil, os.ErrNotExist
}

func TestCatalogSchemaIsSelfContainedAndValidatesItsExample(t *testing.T) {
	for _, typ := range events.Types {
		t.Run(string(typ), func(t *testing.T) {
			schema, err := events.Schema(typ)
			require.NoError(t, err)
			sch := compileAlone(t, typ, schema)

			example, err := events.Example(typ)
			require.NoError(t, err)
			doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(example))
			require.NoError(t, err)
			assert.NoError(t, sch.Validate(doc))
			assert.NoError(t, events.Validate(example))

			var other map[string]any
			require.NoError(t, json.Unmarshal(example, &other))
			other["eventType"] = "no.such.type"
			assert.Error(t, sch.Validate(other), "the schema pins its eventType")
		})
	}
}

func TestCatalogSchemaRefusesWhatValidateRefuses(t *testing.T) {
	cases := map[events.Type]string{
		events.TaskCreated:    "task.created.bad-type.json",
		events.TaskFailed:     "task.failed.missing-retryable.json",
		events.TaskDeadLetter: "task.dead_letter.original-not-a-task-event.json",
	}
	for typ, file := range cases {
		t.Run(file, func(t *testing.T) {
			schema, err := events.Schema(typ)
			require.NoError(t, err)
			raw := readFixture(t, filepath.Join("invalid", file))
			require.Error(t, events.Validate(raw))
			doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
			require.NoError(t, err)
			assert.Error(t, compileAlone(t, typ, schema).Validate(doc))
		})
	}
}

func TestCatalogExamplesAreTheSeedFixtures(t *testing.T) {
	for _, typ := range events.Types {
		t.Run(string(typ), func(t *testing.T) {
			example, err := events.Example(typ)
			require.NoError(t, err)
			assert.JSONEq(t, string(readFixture(t, string(typ)+".json")), string(example))
		})
	}
	entries, err := os.ReadDir("examples")
	require.NoError(t, err)
	assert.Len(t, entries, len(events.Types), "one example per catalog type, nothing else")
}

func TestCatalogRefusesAnUnknownType(t *testing.T) {
	_, err := events.Schema("no.such.type")
	assert.Error(t, err)
	_, err = events.Example("no.such.type")
	assert.Error(t, err)
}
