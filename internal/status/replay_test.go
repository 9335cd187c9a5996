package status

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestASessionEndsFailedWhenAnyEventFailed(t *testing.T) {
	assert.Equal(t, ReplayCompleted, ReplayFinished(0))
	assert.Equal(t, ReplayFailed, ReplayFinished(1))
	assert.False(t, ReplayIsFinal(ReplayRunning))
	assert.True(t, ReplayIsFinal(ReplayCompleted))
	assert.True(t, ReplayIsFinal(ReplayFailed))
}
