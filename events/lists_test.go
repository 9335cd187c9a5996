package events_test

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/events"
)

// TestTaskTypesAreOneList holds the JSON Schema documents that enumerate
// task types to events.TaskTypes: adding a task type to the list without
// its schema enum (or the other way round) fails here.
func TestTaskTypesAreOneList(t *testing.T) {
	for _, tt := range []struct {
		file string
		// enum reads the document's task type enum.
		enum func(raw []byte) ([]string, error)
	}{
		{"schemas/mode/produce.json", func(raw []byte) ([]string, error) {
			var doc struct {
				Defs struct {
					TaskType struct {
						Enum []string `json:"enum"`
					} `json:"taskType"`
				} `json:"$defs"`
			}
			err := json.Unmarshal(raw, &doc)
			return doc.Defs.TaskType.Enum, err
		}},
	} {
		t.Run(tt.file, func(t *testing.T) {
			raw, err := os.ReadFile(tt.file)
			require.NoError(t, err)
			enum, err := tt.enum(raw)
			require.NoError(t, err)
			assert.Equal(t, events.TaskTypeNames(), enum, "%s lists the task types of events.TaskTypes, in order", tt.file)
		})
	}
}

// TestTaskTypesAreAcceptedOnlyInProduceMode checks the effect of the list
// on the compiled schemas: every type of events.TaskTypes is a task.created
// StreamOps may produce, another type is refused there and accepted from a
// topic (the processor fails such a task, not the record).
func TestTaskTypesAreAcceptedOnlyInProduceMode(t *testing.T) {
	build := func(typ string) []byte {
		env, err := events.NewEvent(events.TaskCreatedPayload{TaskID: events.NewTaskID(), Type: events.TaskType(typ),
			Data: json.RawMessage(`{}`), MaxRetries: 3, CreatedAt: events.Now()}, nil)
		if err == nil {
			return mustJSON(t, env)
		}
		// NewEvent validates in produce mode; build the refused one by hand.
		env, err = events.NewEvent(events.TaskCreatedPayload{TaskID: events.NewTaskID(), Type: events.TaskEmailNotification,
			Data: json.RawMessage(`{}`), MaxRetries: 3, CreatedAt: events.Now()}, nil)
		require.NoError(t, err)
		var p map[string]any
		require.NoError(t, json.Unmarshal(env.Payload, &p))
		p["type"] = typ
		env.Payload = mustJSON(t, p)
		return mustJSON(t, env)
	}
	for _, typ := range append(events.TaskTypeNames(), "sms_notification") {
		t.Run(typ, func(t *testing.T) {
			known := events.TaskType(typ).Known()
			doc := build(typ)
			if known {
				assert.NoError(t, events.Produced.Validate(doc))
			} else {
				assert.Error(t, events.Produced.Validate(doc))
			}
			assert.NoError(t, events.Consumed.Validate(doc))
		})
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}
