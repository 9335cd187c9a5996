package events_test

import (
	"encoding/json"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/events/eventstest"
)

// TestTaskTypesAreOneList: the produce-mode schema takes its task types
// from events.TaskTypes (schemas/mode/produce.json names none itself), so
// every listed type is a task.created StreamOps may produce and a type the
// list does not hold is refused there; consume mode takes any type (the
// processor fails such a task, not the record).
func TestTaskTypesAreOneList(t *testing.T) {
	build := func(typ string) []byte {
		env, err := events.NewEvent(events.TaskCreatedPayload{TaskID: events.NewTaskID(), Type: events.TaskEmailNotification,
			Data: json.RawMessage(`{}`), MaxRetries: 3, CreatedAt: events.Now()}, nil)
		require.NoError(t, err)
		var p map[string]any
		require.NoError(t, json.Unmarshal(env.Payload, &p))
		p["type"] = typ
		env.Payload = mustJSON(t, p)
		return mustJSON(t, env)
	}
	tests := []struct {
		typ      string
		produced bool
	}{{eventstest.Unlisted, false}}
	for _, typ := range events.TaskTypeNames() {
		tests = append(tests, struct {
			typ      string
			produced bool
		}{typ, true})
	}
	require.False(t, events.TaskType(eventstest.Unlisted).Known(), "the negative case is never a listed type")
	for _, tt := range tests {
		t.Run(tt.typ, func(t *testing.T) {
			doc := build(tt.typ)
			if tt.produced {
				assert.NoError(t, events.Produced.Validate(doc))
			} else {
				assert.Error(t, events.Produced.Validate(doc), "a producer keeps to events.TaskTypes")
			}
			assert.NoError(t, events.Consumed.Validate(doc))
		})
	}
}

// TestListedNamesAreLowerSnakeCase: task types and steps are lower snake
// case, so eventstest.Unlisted, the negative case of the lists' tests,
// can never be one of them.
func TestListedNamesAreLowerSnakeCase(t *testing.T) {
	name := regexp.MustCompile(`^[a-z][a-z0-9_]*$`)
	for _, n := range append(events.TaskTypeNames(), events.Steps...) {
		assert.Regexp(t, name, n)
	}
	assert.NotRegexp(t, name, eventstest.Unlisted)
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}
