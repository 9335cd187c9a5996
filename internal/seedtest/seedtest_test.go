package seedtest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestEverySeedExampleReadsByTheRules(t *testing.T) {
	entries, err := os.ReadDir(Dir())
	require.NoError(t, err)
	require.NotEmpty(t, entries)
	for _, e := range entries {
		name := e.Name()
		t.Run(name, func(t *testing.T) {
			switch ext := filepath.Ext(name); {
			case ext == ".json" || ext == ".jsonc":
				JSON(t, name)
			case strings.HasSuffix(name, ".configuration.js"), strings.HasSuffix(name, "example_kafka_message.js"):
				JSObject(t, name)
			default:
				assert.NotEmpty(t, Read(t, name))
			}
		})
	}
}

func TestRulesChangeOnlyCommentsAndPlaceholders(t *testing.T) {
	tests := []struct {
		name, in, want string
		js             bool
	}{
		{"line comment", `{"a": "1", // First attempt` + "\n" + `"b": 2}`, `{"a": "1", ` + "\n" + `"b": 2}`, false},
		{"slashes in a string stay", `{"url": "http://x//y"}`, `{"url": "http://x//y"}`, false},
		{"block comment", `{"payload": { /* original task data */ }}`, `{"payload": {  }}`, false},
		{"placeholders", `{"a": [...], "b": {...}}`, `{"a": [], "b": {}}`, false},
		{"fragment", `"entity_data": {"orderId": 1}`, `{"entity_data": {"orderId": 1}}`, false},
		{"bare keys and trailing comma", "{\n  name: \"workflows\",\n  partitions: 3, // n\n}", "{\n  \"name\": \"workflows\",\n  \"partitions\": 3 \n}", true},
		{"JSON.stringify", `{value: JSON.stringify({a: 1}), b: 2}`, `{"value": {"a": 1}, "b": 2}`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, toJSON(tt.in, tt.js))
		})
	}
}

func TestTypesListsEachKeyWithItsTypeAsWritten(t *testing.T) {
	got := Types(t, "003_message_format.kafka_message_structure.js")
	assert.Equal(t, map[string]string{
		"key": "string", "value": "string", "timestamp": "number",
		"headers.content-type": `"application/json"`, "headers.schema-version": `"1.0.0"`,
	}, got)
}
