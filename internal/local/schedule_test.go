package local

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/internal/deadline"
	"github.com/streamops/streamops/internal/testenv"
)

func TestScheduleFiringTimes(t *testing.T) {
	at := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339, s)
		require.NoError(t, err)
		return v
	}
	tests := []struct {
		name string
		next func(time.Time) time.Time
		now  string
		want string
	}{
		{"rate", Every(10 * time.Second), "2026-01-04T01:09:27Z", "2026-01-04T01:09:37Z"},
		{"daily, later today", DailyAt(3, 0), "2026-01-04T01:09:27Z", "2026-01-04T03:00:00Z"},
		{"daily, tomorrow", DailyAt(3, 0), "2026-01-04T03:00:00Z", "2026-01-05T03:00:00Z"},
		{"daily, from another zone", DailyAt(3, 0), "2026-01-04T05:30:00+02:00", "2026-01-05T03:00:00Z"},
		{"archiver, as deployed", Config{}.archiverNext(), "2026-01-04T01:09:27Z", "2026-01-04T03:00:00Z"},
		{"archiver, every ArchiverInterval", Config{ArchiverInterval: 10 * time.Minute}.archiverNext(), "2026-01-04T01:09:27Z", "2026-01-04T01:19:27Z"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.True(t, at(tc.want).Equal(tc.next(at(tc.now))), "got %s", tc.next(at(tc.now)))
		})
	}
}

// TestScheduledEventIsWhatTheDeployedScheduleSends compares the payload
// with testdata/eventbridge (the shape infra/schedules.go configures).
func TestScheduledEventIsWhatTheDeployedScheduleSends(t *testing.T) {
	ev := ScheduledEvent(FnRetrySweeper, time.Date(2026, 1, 4, 1, 9, 27, 123e6, time.UTC), 1)
	assert.Regexp(t, `^[0-9a-f-]{36}$`, ev.ID)
	ev.ID = "4b6d6c8e-0f1a-4c2b-9d3e-5f7a8b9c0d1e"
	got, err := json.MarshalIndent(ev, "", "  ")
	require.NoError(t, err)
	testenv.GoldenJSON(t, "eventbridge/scheduled-retry-sweeper.json", got, *update)
}

func TestSchedulerInvokesWithDeadlineAndNeverOverlaps(t *testing.T) {
	var mu sync.Mutex
	running, overlapped, runs := 0, false, 0
	var deadlines []time.Duration
	fn := func(ctx context.Context, ev events.EventBridgeEvent) error {
		mu.Lock()
		running++
		overlapped = overlapped || running > 1
		runs++
		d, _ := ctx.Deadline()
		deadlines = append(deadlines, time.Until(d))
		n := runs
		mu.Unlock()
		time.Sleep(30 * time.Millisecond) // longer than the interval
		mu.Lock()
		running--
		mu.Unlock()
		assert.Equal(t, "Scheduled Event", ev.DetailType)
		if n == 2 {
			return errors.New("transient")
		}
		return nil
	}
	sc := newScheduler(Schedule{Function: FnOutboxRelay, Handler: fn, Next: Every(10 * time.Millisecond), Timeout: 50 * time.Second}, quiet)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); sc.run(ctx) }()
	require.Eventually(t, func() bool { mu.Lock(); defer mu.Unlock(); return runs >= 4 }, 5*time.Second, 5*time.Millisecond,
		"a failed run does not stop the schedule")
	cancel()
	<-done
	mu.Lock()
	defer mu.Unlock()
	assert.False(t, overlapped, "runs never overlap")
	assert.Zero(t, running, "the run under way finished before run returned")
	for _, d := range deadlines {
		assert.InDelta(t, (50 * time.Second).Seconds(), d.Seconds(), 1, "each run gets the function's timeout")
	}
}

// TestSchedulerKeepsItsRateWhateverTheRunsTake: each firing is one period
// after the previous firing (rate(…)), not after the run ended, and a rate
// schedule fires as the stack starts; firings missed during a long run
// are skipped, never stacked.
func TestSchedulerKeepsItsRateWhateverTheRunsTake(t *testing.T) {
	const period = 10 * time.Millisecond
	var mu sync.Mutex
	var from []time.Time // what Next was asked to continue from
	runs := 0
	next := func(at time.Time) time.Time {
		mu.Lock()
		from = append(from, at)
		mu.Unlock()
		return at.Add(period)
	}
	fn := func(context.Context, events.EventBridgeEvent) error {
		mu.Lock()
		runs++
		mu.Unlock()
		time.Sleep(25 * time.Millisecond) // longer than the period
		return nil
	}
	start := time.Now()
	sc := newScheduler(Schedule{Function: FnOutboxRelay, Handler: fn, Next: next, AtStart: true, Timeout: time.Minute}, quiet)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); sc.run(ctx) }()
	require.Eventually(t, func() bool { mu.Lock(); defer mu.Unlock(); return runs >= 4 }, 5*time.Second, time.Millisecond)
	cancel()
	<-done
	mu.Lock()
	defer mu.Unlock()
	require.NotEmpty(t, from)
	assert.False(t, from[0].Before(start), "the first run fires at start")
	for _, at := range from {
		assert.Zero(t, at.Sub(from[0])%period, "every firing is on the rate's grid: %s", at.Sub(from[0]))
	}
	assert.Less(t, runs, len(from), "missed firings are skipped, not each run")
}

// TestStoppingTheStackWindsDownARunUnderWay: a run waiting for more work
// (the outbox relay between due entries) returns when the stack stops,
// instead of holding the shutdown for the rest of its window.
func TestStoppingTheStackWindsDownARunUnderWay(t *testing.T) {
	started := make(chan struct{})
	var woke bool
	fn := func(ctx context.Context, _ events.EventBridgeEvent) error {
		close(started)
		woke = !deadline.Sleep(ctx, time.Hour)
		return nil
	}
	sc := newScheduler(Schedule{Function: FnOutboxRelay, Handler: fn, Next: Every(time.Hour), AtStart: true, Timeout: 2 * time.Hour}, quiet)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); sc.run(ctx) }()
	<-started
	cancel()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the run under way did not wind down")
	}
	assert.True(t, woke, "its sleep ended early")
}
