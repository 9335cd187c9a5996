package outbox

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/streamops/streamops/internal/backoff"
	"github.com/streamops/streamops/internal/emit"
	"github.com/streamops/streamops/internal/status"
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
		want          status.Outcome
		wantNext      time.Time
	}{
		{"an open breaker defers it", 3, 10, nil, now.Add(time.Minute), true, status.OutcomeDeferred, now.Add(time.Minute)},
		{"no error delivers it", 3, 10, nil, time.Time{}, false, status.OutcomeDelivered, time.Time{}},
		{"a retryable error with attempts left retries after the gap", 2, 10, down, time.Time{}, true, status.OutcomeRetry, now.Add(backoff.PartnerGaps.Delay(2))},
		{"a refusal dead-letters it", 1, 10, refused, time.Time{}, false, status.OutcomeDeadLettered, time.Time{}},
		{"a retryable error on the last attempt dead-letters it", 10, 10, down, time.Time{}, false, status.OutcomeDeadLettered, time.Time{}},
		{"a partner delivery stops at seed 000's fifth attempt", 5, 10, down, time.Time{}, true, status.OutcomeDeadLettered, time.Time{}},
		{"a Kafka entry goes on past five", 5, 10, down, time.Time{}, false, status.OutcomeRetry, now.Add(backoff.PartnerGaps.Delay(5))},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := Entry{ID: "ob-1", Attempts: c.attempts, MaxAttempts: c.max}
			got, next := e.outcome(c.err, c.deferTill, time.Time{}, c.partner, backoff.PartnerGaps, now)
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

// TestAttemptStatusKeepsDeadLettersOutOfTheRetryQuery: seed 000's "Failed
// Events for Retry" (FAILED, no fifth attempt) selects exactly the
// deliveries whose retry is scheduled.
func TestAttemptStatusKeepsDeadLettersOutOfTheRetryQuery(t *testing.T) {
	for _, c := range []struct {
		name     string
		attempts int
		outcome  status.Outcome
		want     string
	}{
		{"delivered", 2, status.OutcomeDelivered, status.PartnerSuccess},
		{"failed, retry scheduled", 1, status.OutcomeRetry, status.PartnerFailed},
		{"failed, fourth of five", 4, status.OutcomeRetry, status.PartnerFailed},
		{"fifth failure: over, as seed 000 records it", 5, status.OutcomeDeadLettered, status.PartnerFailed},
		{"refused for good on the first attempt", 1, status.OutcomeDeadLettered, status.PartnerDeadLetter},
		{"refused for good on the fourth attempt", 4, status.OutcomeDeadLettered, status.PartnerDeadLetter},
	} {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, Entry{Attempts: c.attempts}.attemptStatus(c.outcome))
		})
	}
}

// TestAServingRunStopsClaimingJustBeforeTheNextRun: the window is the
// schedule's period less the handover, from the run's start, or from its
// firing (whole seconds) when the run started late.
func TestAServingRunStopsClaimingJustBeforeTheNextRun(t *testing.T) {
	tick := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, c := range []struct {
		name       string
		period     time.Duration
		start      time.Time
		scheduled  time.Time
		wantUntil  time.Time
		wantServes bool
	}{
		{"no period: deliver what is due and return", 0, tick, tick, time.Time{}, false},
		{"on time", time.Minute, tick.Add(20 * time.Millisecond), tick, tick.Add(time.Minute - 480*time.Millisecond), true},
		{"firing time unknown", time.Minute, tick, time.Time{}, tick.Add(time.Minute - 500*time.Millisecond), true},
		{"started late: anchored to the firing", time.Minute, tick.Add(5 * time.Second), tick, tick.Add(time.Minute + 500*time.Millisecond), true},
		{"period shorter than the handover", 300 * time.Millisecond, tick, tick, tick.Add(-200 * time.Millisecond), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, err := New(Config{Store: nopStore{}, Kafka: KafkaDeliverer{Publisher: nopPublisher{}}, Period: c.period})
			if !assert.NoError(t, err) {
				return
			}
			until, serves := r.window(c.start, c.scheduled)
			assert.Equal(t, c.wantServes, serves)
			assert.True(t, c.wantUntil.Equal(until), "until %s, want %s", until, c.wantUntil)
		})
	}
	assert.Equal(t, 75*time.Second, RunTimeout(time.Minute), "the serving window plus the batch in flight")
}

func TestBreakerOpensHalfOpensAndCloses(t *testing.T) {
	cfg := BreakerConfig{Failures: 3, Cooldown: time.Minute}
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	down := &DeliveryError{Retryable: true, Err: errors.New("503")}
	b := Breaker{State: status.BreakerClosed}

	for range 2 {
		b.record(down, now, cfg)
	}
	assert.Equal(t, status.BreakerClosed, b.State, "two failures of three leave it closed")
	b.record(down, now, cfg)
	assert.Equal(t, status.BreakerOpen, b.State, "the third opens it")
	assert.Equal(t, now.Add(time.Minute), *b.OpenUntil)
	assert.Equal(t, "503", b.LastError)

	ok, until, changed := b.allow(now.Add(30 * time.Second))
	assert.False(t, ok, "cooling down")
	assert.Equal(t, now.Add(time.Minute), until)
	assert.False(t, changed)

	ok, _, changed = b.allow(now.Add(time.Minute))
	assert.True(t, ok, "cooldown over: one probe goes")
	assert.True(t, changed)
	assert.Equal(t, status.BreakerHalfOpen, b.State)

	b.record(down, now.Add(time.Minute), cfg)
	assert.Equal(t, status.BreakerOpen, b.State, "a failed probe opens it again")
	assert.Equal(t, now.Add(2*time.Minute), *b.OpenUntil)

	b.record(&DeliveryError{Retryable: false, Err: errors.New("400")}, now.Add(2*time.Minute), cfg)
	assert.Equal(t, status.BreakerClosed, b.State, "a refusal comes from a working endpoint")
	assert.Zero(t, b.ConsecutiveFailures)
	assert.Nil(t, b.OpenUntil)
	assert.Nil(t, b.LastSuccessAt)

	b.record(nil, now.Add(3*time.Minute), cfg)
	assert.Equal(t, status.BreakerClosed, b.State)
	assert.Equal(t, now.Add(3*time.Minute), *b.LastSuccessAt)
}

// nopStore and nopPublisher satisfy Config for tests that never reach them.
type (
	nopStore     struct{ OutboxStore }
	nopPublisher struct{ emit.Publisher }
)
