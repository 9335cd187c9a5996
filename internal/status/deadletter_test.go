package status

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestADeadLetterIsResolvedAsReplayedOrDiscarded(t *testing.T) {
	assert.True(t, DeadLetterIsResolution(DeadLetterReplayed))
	assert.True(t, DeadLetterIsResolution(DeadLetterDiscarded))
	assert.False(t, DeadLetterIsResolution(DeadLetterOpen))
	assert.False(t, DeadLetterIsResolution("all"))
}
