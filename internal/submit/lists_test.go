package submit

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/events/eventstest"
)

// TestSubmissionTakesTheTaskTypesAndStepsOfTheLists: POST /api/tasks
// accepts exactly the types of events.TaskTypes and POST /api/workflows
// exactly the steps of events.Steps, and a refusal names them all.
func TestSubmissionTakesTheTaskTypesAndStepsOfTheLists(t *testing.T) {
	data := json.RawMessage(`{}`)
	for _, typ := range events.TaskTypeNames() {
		t.Run("task type "+typ, func(t *testing.T) {
			assert.NoError(t, validateTask(TaskRequest{Type: typ, Data: data}))
		})
	}
	for _, step := range events.Steps {
		t.Run("step "+step, func(t *testing.T) {
			assert.NoError(t, validateWorkflow(WorkflowRequest{Name: "w", Steps: []string{step}, Priority: "low"}))
		})
	}

	err := validateTask(TaskRequest{Type: eventstest.Unlisted, Data: data})
	assert.EqualError(t, err, `type: unknown task type "`+eventstest.Unlisted+`" (known types: `+strings.Join(events.TaskTypeNames(), ", ")+`)`)
	err = validateWorkflow(WorkflowRequest{Name: "w", Steps: []string{"validate", eventstest.Unlisted}, Priority: "low"})
	assert.EqualError(t, err, `steps[1]: unknown step "`+eventstest.Unlisted+`" (known steps: `+strings.Join(events.Steps, ", ")+`)`)
}
