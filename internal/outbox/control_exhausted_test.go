package outbox

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/streamops/streamops/internal/fault"
)

// TestAnEntryClaimedBeyondItsAttemptsFailsWithoutARequest: an entry
// claimed for a sixth attempt of five fails, not retryable; one within
// its attempts goes on.
func TestAnEntryClaimedBeyondItsAttemptsFailsWithoutARequest(t *testing.T) {
	tests := []struct {
		name     string
		attempts int
		fails    bool
	}{
		{"first attempt", 1, false},
		{"last attempt", 5, false},
		{"beyond the last", 6, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := &outcome{entry: Entry{Attempts: tc.attempts, MaxAttempts: 5}}
			v := exhaustedControl.before(context.Background(), nil, o)
			assert.True(t, v.deferTill.IsZero())
			if !tc.fails {
				assert.NoError(t, v.err)
				return
			}
			assert.ErrorContains(t, v.err, "attempts exhausted")
			assert.False(t, fault.IsRetryable(v.err))
		})
	}
}
