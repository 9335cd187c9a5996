package status

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestEveryTaskStatusIsEitherUnfinishedOrFinal(t *testing.T) {
	for _, tc := range []struct {
		status                    string
		active, unfinished, final bool
	}{
		{TaskPending, true, true, false},
		{TaskProcessing, true, true, false},
		{TaskFailed, false, true, false},
		{TaskCompleted, false, false, true},
		{TaskDeadLetter, false, false, true},
	} {
		t.Run(tc.status, func(t *testing.T) {
			assert.Equal(t, tc.active, slices.Contains(TaskActive(), tc.status))
			assert.Equal(t, tc.unfinished, slices.Contains(TaskUnfinished(), tc.status))
			assert.Equal(t, tc.final, TaskIsFinal(tc.status))
		})
	}
	assert.False(t, TaskIsFinal("unknown"))
}
