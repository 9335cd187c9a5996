package status

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestOnlyInAndOutAreDirections(t *testing.T) {
	assert.True(t, IsDirection(DirectionIn))
	assert.True(t, IsDirection(DirectionOut))
	assert.False(t, IsDirection("in"))
	assert.False(t, IsDirection(""))
}
