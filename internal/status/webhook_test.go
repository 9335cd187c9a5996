package status

import (
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

func TestRoutingAgainRepeatsTheAttemptAProcessingRowCounted(t *testing.T) {
	tests := []struct {
		status     string
		retryCount int
		want       int
	}{
		{WebhookReceived, 0, 0},
		{WebhookProcessing, 1, 0},
		{WebhookProcessing, 3, 2},
		{WebhookProcessing, 0, 0},
		{WebhookFailed, 1, 1},
		{WebhookFailed, 4, 4},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.want, WebhookRun(tc.status, tc.retryCount), "%s with %d attempts counted", tc.status, tc.retryCount)
	}
}
