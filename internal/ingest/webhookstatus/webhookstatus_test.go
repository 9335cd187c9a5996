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
