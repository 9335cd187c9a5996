package taskstatus

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestEveryStatusIsEitherUnfinishedOrFinal(t *testing.T) {
	for _, tc := range []struct {
		status                    string
		active, unfinished, final bool
	}{
		{Pending, true, true, false},
		{Processing, true, true, false},
		{Failed, false, true, false},
		{Completed, false, false, true},
		{DeadLetter, false, false, true},
	} {
		t.Run(tc.status, func(t *testing.T) {
			assert.Equal(t, tc.active, slices.Contains(Active(), tc.status))
			assert.Equal(t, tc.unfinished, slices.Contains(Unfinished(), tc.status))
			assert.Equal(t, tc.final, IsFinal(tc.status))
		})
	}
	assert.False(t, IsFinal("unknown"))
}
