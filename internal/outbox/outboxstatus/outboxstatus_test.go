package outboxstatus

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestEachOutcomeLeavesTheEntryInItsStatus(t *testing.T) {
	for _, tc := range []struct {
		name                  string
		outcome               Outcome
		attempts, maxAttempts int
		recorded              Outcome
		status                string
	}{
		{"delivered", Delivered, 1, 5, Delivered, Completed},
		{"retry with attempts left", Retry, 4, 5, Retry, Failed},
		{"retry of an exhausted entry", Retry, 5, 5, DeadLettered, DeadLetter},
		{"dead lettered", DeadLettered, 1, 5, DeadLettered, DeadLetter},
		{"deferred first attempt", Deferred, 1, 5, Deferred, Pending},
		{"deferred later attempt", Deferred, 2, 5, Deferred, Failed},
		{"deferred when exhausted", Deferred, 5, 5, Deferred, Failed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.outcome.Recorded(tc.attempts, tc.maxAttempts)
			assert.Equal(t, tc.recorded, got)
			assert.Equal(t, tc.status, got.Status(tc.attempts))
		})
	}
	assert.Empty(t, Outcome(0).Status(1))
	assert.Equal(t, []string{Pending, Failed}, Due())
	assert.Equal(t, []string{DeadLetter}, Requeueable())
}
