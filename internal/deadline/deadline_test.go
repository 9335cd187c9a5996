package deadline

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestLeftKeepsTheMargin(t *testing.T) {
	assert.True(t, Left(context.Background(), time.Hour), "no deadline: always time left")
	soon, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	assert.True(t, Left(soon, time.Second))
	assert.False(t, Left(soon, 10*time.Second), "inside the margin")
	done, stop := context.WithCancel(context.Background())
	stop()
	assert.False(t, Left(done, 0), "a cancelled context has no time left")
}
