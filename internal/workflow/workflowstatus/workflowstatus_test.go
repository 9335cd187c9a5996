package workflowstatus

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestEveryStatusIsEitherActiveOrFinal(t *testing.T) {
	for _, tc := range []struct {
		status        string
		active, final bool
	}{
		{Pending, true, false},
		{Processing, true, false},
		{Completed, false, true},
		{Failed, false, true},
	} {
		t.Run(tc.status, func(t *testing.T) {
			assert.Equal(t, tc.active, IsActive(tc.status))
			assert.Equal(t, tc.final, IsFinal(tc.status))
			assert.Equal(t, tc.active, slices.Contains(Active(), tc.status))
		})
	}
	assert.False(t, IsActive("unknown"))
	assert.False(t, IsFinal("unknown"))
}
