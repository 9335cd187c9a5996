package outbox

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/streamops/streamops/internal/backoff"
	"github.com/streamops/streamops/internal/outbox/outboxstatus"
	"github.com/streamops/streamops/internal/outbox/partnerstatus"
)

func TestAnAttemptEndsDeferredDeliveredRetriedOrDeadLettered(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	down := &DeliveryError{Retryable: true, Err: errors.New("503")}
	refused := &DeliveryError{Retryable: false, Err: errors.New("400")}
	cases := []struct {
		name          string
		attempts, max int
		err           error
		deferTill     time.Time
		partner       bool
		want          outboxstatus.Outcome
		wantNext      time.Time
	}{
		{"an open breaker defers it", 3, 10, nil, now.Add(time.Minute), true, outboxstatus.Deferred, now.Add(time.Minute)},
		{"no error delivers it", 3, 10, nil, time.Time{}, false, outboxstatus.Delivered, time.Time{}},
		{"a retryable error with attempts left retries after the gap", 2, 10, down, time.Time{}, true, outboxstatus.Retry, now.Add(backoff.PartnerGaps.Delay(2))},
		{"a refusal dead-letters it", 1, 10, refused, time.Time{}, false, outboxstatus.DeadLettered, time.Time{}},
		{"a retryable error on the last attempt dead-letters it", 10, 10, down, time.Time{}, false, outboxstatus.DeadLettered, time.Time{}},
		{"a partner delivery stops at seed 000's fifth attempt", 5, 10, down, time.Time{}, true, outboxstatus.DeadLettered, time.Time{}},
		{"a Kafka entry goes on past five", 5, 10, down, time.Time{}, false, outboxstatus.Retry, now.Add(backoff.PartnerGaps.Delay(5))},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := Entry{ID: "ob-1", Attempts: c.attempts, MaxAttempts: c.max}
			got, next := e.outcome(c.err, c.deferTill, c.partner, backoff.PartnerGaps, now)
			assert.Equal(t, c.want, got)
			assert.Equal(t, c.wantNext, next)
		})
	}
}

func TestPartnerAttemptsBeyondTheFifthAreNeitherSentNorRecorded(t *testing.T) {
	for _, c := range []struct {
		attempts, max       int
		exhausted, recorded bool
	}{
		{0, 10, false, false},
		{1, 10, false, true},
		{5, 10, false, true},
		{6, 10, true, false},
		{3, 2, true, true},
	} {
		e := Entry{Attempts: c.attempts, MaxAttempts: c.max}
		assert.Equal(t, c.exhausted, e.exhausted(), "attempt %d of %d", c.attempts, c.max)
		assert.Equal(t, c.recorded, e.attemptRecorded(), "attempt %d", c.attempts)
	}
}

func TestAttemptStatusFollowsTheOutcome(t *testing.T) {
	assert.Equal(t, partnerstatus.Success, attemptStatus(outboxstatus.Delivered))
	assert.Equal(t, partnerstatus.Failed, attemptStatus(outboxstatus.DeadLettered))
	assert.Equal(t, partnerstatus.Processing, attemptStatus(outboxstatus.Retry))
}

func TestBreakerOpensHalfOpensAndCloses(t *testing.T) {
	cfg := BreakerConfig{Failures: 3, Cooldown: time.Minute}
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	down := &DeliveryError{Retryable: true, Err: errors.New("503")}
	b := Breaker{State: partnerstatus.BreakerClosed}

	for range 2 {
		b.record(down, now, cfg)
	}
	assert.Equal(t, partnerstatus.BreakerClosed, b.State, "two failures of three leave it closed")
	b.record(down, now, cfg)
	assert.Equal(t, partnerstatus.BreakerOpen, b.State, "the third opens it")
	assert.Equal(t, now.Add(time.Minute), *b.OpenUntil)
	assert.Equal(t, "503", b.LastError)

	ok, until, changed := b.allow(now.Add(30 * time.Second))
	assert.False(t, ok, "cooling down")
	assert.Equal(t, now.Add(time.Minute), until)
	assert.False(t, changed)

	ok, _, changed = b.allow(now.Add(time.Minute))
	assert.True(t, ok, "cooldown over: one probe goes")
	assert.True(t, changed)
	assert.Equal(t, partnerstatus.BreakerHalfOpen, b.State)

	b.record(down, now.Add(time.Minute), cfg)
	assert.Equal(t, partnerstatus.BreakerOpen, b.State, "a failed probe opens it again")
	assert.Equal(t, now.Add(2*time.Minute), *b.OpenUntil)

	b.record(&DeliveryError{Retryable: false, Err: errors.New("400")}, now.Add(2*time.Minute), cfg)
	assert.Equal(t, partnerstatus.BreakerClosed, b.State, "a refusal comes from a working endpoint")
	assert.Zero(t, b.ConsecutiveFailures)
	assert.Nil(t, b.OpenUntil)
	assert.Nil(t, b.LastSuccessAt)

	b.record(nil, now.Add(3*time.Minute), cfg)
	assert.Equal(t, partnerstatus.BreakerClosed, b.State)
	assert.Equal(t, now.Add(3*time.Minute), *b.LastSuccessAt)
}
