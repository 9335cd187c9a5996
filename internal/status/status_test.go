package status

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestWebhookTransitionsNeverMoveARowBack(t *testing.T) {
	for _, tc := range []struct {
		to   string
		from []string
	}{
		{WebhookReceived, []string{WebhookReceived}},
		{WebhookProcessing, []string{WebhookReceived, WebhookFailed}},
		{WebhookCompleted, []string{WebhookReceived, WebhookProcessing}},
		{WebhookSkipped, []string{WebhookReceived, WebhookProcessing}},
		{WebhookFailed, []string{WebhookReceived, WebhookProcessing}},
	} {
		t.Run(tc.to, func(t *testing.T) {
			from, ok := WebhookFrom(tc.to)
			assert.True(t, ok)
			assert.Equal(t, tc.from, from)
		})
	}
	_, ok := WebhookFrom("unknown")
	assert.False(t, ok)
}

func TestEveryWebhookStatusHasTransitions(t *testing.T) {
	for _, s := range WebhookAll() {
		_, ok := WebhookFrom(s)
		assert.True(t, ok, s)
	}
	assert.Equal(t, []string{WebhookReceived, WebhookProcessing}, WebhookUnsettled())
	assert.True(t, WebhookIsOutcome(WebhookCompleted))
	assert.True(t, WebhookIsOutcome(WebhookFailed))
	assert.False(t, WebhookIsOutcome(WebhookSkipped))
	assert.False(t, WebhookIsOutcome(WebhookProcessing))
}

func TestAWebhookRunEndsCompletedSkippedOrFailedAfterItStarted(t *testing.T) {
	tests := []struct {
		status     string
		runStarted bool
		want       bool
	}{
		{WebhookReceived, false, false},
		{WebhookProcessing, true, false},
		{WebhookFailed, false, false}, // a routing failure: routed again
		{WebhookFailed, true, true},   // its workflow or task failed
		{WebhookCompleted, true, true},
		{WebhookSkipped, false, true},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.want, WebhookRunEnded(tc.status, tc.runStarted), "%s, run started %v", tc.status, tc.runStarted)
	}
}

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
		{"throttled first attempt", OutcomeThrottled, 1, 5, OutcomeThrottled, OutboxPending},
		{"throttled later attempt", OutcomeThrottled, 3, 5, OutcomeThrottled, OutboxFailed},
		{"throttled fifth attempt is not dead", OutcomeThrottled, 5, 5, OutcomeThrottled, OutboxFailed},
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

func TestOnlyInAndOutAreDirections(t *testing.T) {
	assert.True(t, IsDirection(DirectionIn))
	assert.True(t, IsDirection(DirectionOut))
	assert.False(t, IsDirection("in"))
	assert.False(t, IsDirection(""))
}

func TestADeadLetterIsResolvedAsReplayedOrDiscarded(t *testing.T) {
	assert.True(t, DeadLetterIsResolution(DeadLetterReplayed))
	assert.True(t, DeadLetterIsResolution(DeadLetterDiscarded))
	assert.False(t, DeadLetterIsResolution(DeadLetterOpen))
	assert.False(t, DeadLetterIsResolution("all"))
}

func TestEveryTaskStatusIsEitherUnfinishedOrFinal(t *testing.T) {
	for _, tc := range []struct {
		status                    string
		active, unfinished, final bool
	}{
		{TaskPending, true, true, false},
		{TaskProcessing, true, true, false},
		{TaskFailed, false, true, false},
		{TaskCompleted, false, false, true},
		{TaskDeadLetter, false, false, true},
	} {
		t.Run(tc.status, func(t *testing.T) {
			assert.Equal(t, tc.active, slices.Contains(TaskActive(), tc.status))
			assert.Equal(t, tc.unfinished, slices.Contains(TaskUnfinished(), tc.status))
			assert.Equal(t, tc.final, TaskIsFinal(tc.status))
		})
	}
	assert.False(t, TaskIsFinal("unknown"))
}

func TestEveryWorkflowStatusIsEitherActiveOrFinal(t *testing.T) {
	for _, tc := range []struct {
		status        string
		active, final bool
	}{
		{WorkflowPending, true, false},
		{WorkflowProcessing, true, false},
		{WorkflowCompleted, false, true},
		{WorkflowFailed, false, true},
	} {
		t.Run(tc.status, func(t *testing.T) {
			assert.Equal(t, tc.active, WorkflowIsActive(tc.status))
			assert.Equal(t, tc.final, WorkflowIsFinal(tc.status))
			assert.Equal(t, tc.active, slices.Contains(WorkflowActive(), tc.status))
		})
	}
	assert.False(t, WorkflowIsActive("unknown"))
	assert.False(t, WorkflowIsFinal("unknown"))
}

func TestASessionEndsFailedWhenAnyEventFailed(t *testing.T) {
	assert.Equal(t, ReplayCompleted, ReplayFinished(0))
	assert.Equal(t, ReplayFailed, ReplayFinished(1))
	assert.False(t, ReplayIsFinal(ReplayRunning))
	assert.True(t, ReplayIsFinal(ReplayCompleted))
	assert.True(t, ReplayIsFinal(ReplayFailed))
}
