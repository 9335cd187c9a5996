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

	"github.com/streamops/streamops/internal/stacktest"
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
	stacktest.GoldenJSON(t, "eventbridge/scheduled-retry-sweeper.json", got, *update)
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
