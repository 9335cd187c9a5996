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

func TestWindDownEndsTheTimeLeftAndTheSleep(t *testing.T) {
	stop := make(chan struct{})
	ctx := WithWindDown(context.Background(), stop)
	assert.True(t, Left(ctx, time.Hour), "not winding down yet")
	assert.True(t, Sleep(ctx, time.Millisecond), "a sleep nobody interrupts runs its course")
	close(stop)
	assert.False(t, Left(ctx, 0), "winding down: no time left for more work")
	assert.False(t, Sleep(ctx, time.Hour), "winding down ends the sleep at once")
	done, cancel := context.WithCancel(context.Background())
	cancel()
	assert.False(t, Sleep(done, time.Hour), "a cancelled context ends the sleep at once")
}
