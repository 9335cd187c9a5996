package deadletterstatus

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestADeadLetterIsResolvedAsReplayedOrDiscarded(t *testing.T) {
	assert.True(t, IsResolution(Replayed))
	assert.True(t, IsResolution(Discarded))
	assert.False(t, IsResolution(Open))
	assert.False(t, IsResolution("all"))
}
