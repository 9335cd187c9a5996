package replaystatus

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestASessionEndsFailedWhenAnyEventFailed(t *testing.T) {
	assert.Equal(t, Completed, Finished(0))
	assert.Equal(t, Failed, Finished(1))
	assert.False(t, IsFinal(Running))
	assert.True(t, IsFinal(Completed))
	assert.True(t, IsFinal(Failed))
}
