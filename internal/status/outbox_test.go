package status

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
		{"delivered", OutcomeDelivered, 1, 5, OutcomeDelivered, OutboxCompleted},
		{"retry with attempts left", OutcomeRetry, 4, 5, OutcomeRetry, OutboxFailed},
		{"retry of an exhausted entry", OutcomeRetry, 5, 5, OutcomeDeadLettered, OutboxDeadLetter},
		{"dead lettered", OutcomeDeadLettered, 1, 5, OutcomeDeadLettered, OutboxDeadLetter},
		{"deferred first attempt", OutcomeDeferred, 1, 5, OutcomeDeferred, OutboxPending},
		{"deferred later attempt", OutcomeDeferred, 2, 5, OutcomeDeferred, OutboxFailed},
		{"deferred when exhausted", OutcomeDeferred, 5, 5, OutcomeDeferred, OutboxFailed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.outcome.Recorded(tc.attempts, tc.maxAttempts)
			assert.Equal(t, tc.recorded, got)
			assert.Equal(t, tc.status, got.Status(tc.attempts))
		})
	}
	assert.Empty(t, Outcome(0).Status(1))
	assert.Equal(t, []string{OutboxPending, OutboxFailed}, OutboxDue())
	assert.Equal(t, []string{OutboxDeadLetter}, OutboxRequeueable())
}
