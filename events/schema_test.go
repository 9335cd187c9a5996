package events_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/events"
)

func TestSchemaFilesMatchTheCatalog(t *testing.T) {
	var catalog struct {
		Properties struct {
			EventType struct {
				Enum []events.Type `json:"enum"`
			} `json:"eventType"`
		} `json:"properties"`
	}
	raw, err := os.ReadFile("schemas/catalog.json")
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, &catalog))
	assert.Equal(t, events.Types, catalog.Properties.EventType.Enum, "catalog.json lists the types of events.Types")

	files, err := filepath.Glob("schemas/*.json")
	require.NoError(t, err)
	var schemaTypes []events.Type
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		if name == "common" || name == "catalog" {
			continue
		}
		schemaTypes = append(schemaTypes, events.Type(name))
	}
	assert.ElementsMatch(t, events.Types, schemaTypes, "one schema file per event type")
}

func TestEverySchemaNamesItsEventType(t *testing.T) {
	for _, typ := range events.Types {
		t.Run(string(typ), func(t *testing.T) {
			var s struct {
				ID         string `json:"$id"`
				Properties struct {
					EventType struct {
						Const events.Type `json:"const"`
					} `json:"eventType"`
				} `json:"properties"`
			}
			raw, err := os.ReadFile(filepath.Join("schemas", string(typ)+".json"))
			require.NoError(t, err)
			require.NoError(t, json.Unmarshal(raw, &s))
			assert.Equal(t, events.SchemaBaseURL+string(typ)+".json", s.ID)
			assert.Equal(t, typ, s.Properties.EventType.Const)
		})
	}
}
