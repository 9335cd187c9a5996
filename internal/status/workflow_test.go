package status

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestEveryWorkflowStatusIsEitherActiveOrFinal(t *testing.T) {
	for _, tc := range []struct {
		status        string
		active, final bool
	}{
		{WorkflowPending, true, false},
		{WorkflowProcessing, true, false},
		{WorkflowCompleted, false, true},
		{WorkflowFailed, false, true},
	} {
		t.Run(tc.status, func(t *testing.T) {
			assert.Equal(t, tc.active, WorkflowIsActive(tc.status))
			assert.Equal(t, tc.final, WorkflowIsFinal(tc.status))
			assert.Equal(t, tc.active, slices.Contains(WorkflowActive(), tc.status))
		})
	}
	assert.False(t, WorkflowIsActive("unknown"))
	assert.False(t, WorkflowIsFinal("unknown"))
}
