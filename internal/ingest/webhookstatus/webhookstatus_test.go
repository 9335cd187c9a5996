package webhookstatus

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestTransitionsNeverMoveARowBack(t *testing.T) {
	for _, tc := range []struct {
		to   string
		from []string
	}{
		{Received, []string{Received}},
		{Processing, []string{Received, Failed}},
		{Completed, []string{Received, Processing}},
		{Skipped, []string{Received, Processing}},
		{Failed, []string{Received, Processing}},
	} {
		t.Run(tc.to, func(t *testing.T) {
			from, ok := From(tc.to)
			assert.True(t, ok)
			assert.Equal(t, tc.from, from)
		})
	}
	_, ok := From("unknown")
	assert.False(t, ok)
}

func TestEveryStatusHasTransitions(t *testing.T) {
	for _, s := range All() {
		_, ok := From(s)
		assert.True(t, ok, s)
	}
	assert.Equal(t, []string{Received, Processing}, Unsettled())
	assert.True(t, IsOutcome(Completed))
	assert.True(t, IsOutcome(Failed))
	assert.False(t, IsOutcome(Skipped))
	assert.False(t, IsOutcome(Processing))
}

func TestRoutingAgainRepeatsTheAttemptAProcessingRowCounted(t *testing.T) {
	tests := []struct {
		status     string
		retryCount int
		want       int
	}{
		{Received, 0, 0},
		{Processing, 1, 0},
		{Processing, 3, 2},
		{Processing, 0, 0},
		{Failed, 1, 1},
		{Failed, 4, 4},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.want, Run(tc.status, tc.retryCount), "%s with %d attempts counted", tc.status, tc.retryCount)
	}
}
