package local

import (
	"context"
	"encoding/json"
	"log/slog"
	"sync"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/google/uuid"

	"github.com/streamops/streamops/internal/deadline"
)

// ScheduledFunction is a Lambda handler behind an EventBridge Scheduler
// schedule, such as the outbox relay's.
type ScheduledFunction func(context.Context, events.EventBridgeEvent) error

// Schedule is one EventBridge Scheduler schedule.
type Schedule struct {
	// Function names the function.
	Function string
	// Handler is the function's handler.
	Handler ScheduledFunction
	// Next returns the firing time after the firing at (or, for the first,
	// after the start): Every(d) or DailyAt(hour, minute).
	Next func(at time.Time) time.Time
	// AtStart fires once as the stack starts, as a rate(…) schedule
	// fires when it is created.
	AtStart bool
	// Timeout is the function's timeout, each invocation's deadline.
	Timeout time.Duration
}

// Every fires every d, as rate(…) does.
func Every(d time.Duration) func(time.Time) time.Time {
	return func(now time.Time) time.Time { return now.Add(d) }
}

// DailyAt fires once a day at hour:minute UTC, as cron(minute hour * * ? *)
// does.
func DailyAt(hour, minute int) func(time.Time) time.Time {
	return func(now time.Time) time.Time {
		now = now.UTC()
		next := time.Date(now.Year(), now.Month(), now.Day(), hour, minute, 0, 0, time.UTC)
		if !next.After(now) {
			next = next.AddDate(0, 0, 1)
		}
		return next
	}
}

// archiverNext is the archiver's schedule: daily at 03:00 UTC, as
// deployed, or every ArchiverInterval when that is set.
func (c Config) archiverNext() func(time.Time) time.Time {
	if c.ArchiverInterval > 0 {
		return Every(c.ArchiverInterval)
	}
	return DailyAt(3, 0)
}

// archiverWhen says when the archiver runs, as the banner prints it.
func (c Config) archiverWhen() string {
	if c.ArchiverInterval > 0 {
		return "every " + c.ArchiverInterval.String()
	}
	return "daily at 03:00 UTC"
}

// scheduler runs one Schedule: at each firing time it invokes the function
// with the events.EventBridgeEvent the deployed schedule sends
// (infra/schedules.go), JSON round-tripped, with the function's timeout as
// deadline. Firings keep their rate whatever the runs take, as rate(…)
// does: the next firing is one period after the last one, not after the
// run ends (an outbox relay serves until just before it). Runs never
// overlap: a firing that comes while a run is under way waits for it, and
// firings missed meanwhile are one. A failed run is logged and not
// retried; the next tick does the work, as deployed. When the stack
// stops, a run under way is asked to wind down (deadline.WithWindDown).
type scheduler struct {
	s   Schedule
	log *slog.Logger

	mu sync.Mutex // held by a run: one at a time
}

func newScheduler(s Schedule, log *slog.Logger) *scheduler {
	return &scheduler{s: s, log: log.With("function", s.Function)}
}

// run fires the schedule until ctx ends. A run under way when ctx ends
// finishes first.
func (sc *scheduler) run(ctx context.Context) {
	at := time.Now()
	if !sc.s.AtStart {
		at = sc.s.Next(at)
	}
	for {
		if !sleepCtx(ctx, time.Until(at)) {
			return
		}
		_ = sc.fire(ctx, at)
		at = sc.s.Next(at)
		for now := time.Now(); !sc.s.Next(at).After(now); {
			at = sc.s.Next(at) // firings missed during a long run are one
		}
	}
}

// fire invokes the function once, for the firing time at.
func (sc *scheduler) fire(ctx context.Context, at time.Time) error {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	ev := ScheduledEvent(sc.s.Function, at, 1)
	var in events.EventBridgeEvent
	err := roundTrip(ev, &in)
	if err == nil {
		ictx, cancel := invocationContext(ctx, sc.s.Function, sc.s.Timeout)
		ictx = deadline.WithWindDown(ictx, ctx.Done())
		start := time.Now()
		err = protect(func() error { return sc.s.Handler(ictx, in) })
		cancel()
		sc.log.DebugContext(ctx, "scheduled run finished", "scheduledTime", in.Time, "latencyMs", time.Since(start).Milliseconds())
	}
	if err != nil {
		sc.log.ErrorContext(ctx, "scheduled run failed; the next tick does the work", "error", err)
	}
	return err
}

// ScheduledEvent is the payload EventBridge Scheduler sends function for
// the firing at: the shape infra/schedules.go configures (version "0", an
// execution id, detail-type "Scheduled Event", source "aws.scheduler", the
// scheduled time, the schedule's ARN, detail {"attempt": n}).
func ScheduledEvent(function string, at time.Time, attempt int) events.EventBridgeEvent {
	detail, _ := json.Marshal(map[string]int{"attempt": attempt})
	return events.EventBridgeEvent{
		Version:    "0",
		ID:         uuid.NewString(),
		DetailType: "Scheduled Event",
		Source:     "aws.scheduler",
		AccountID:  accountID,
		Time:       at.UTC().Truncate(time.Second),
		Region:     "local",
		Resources:  []string{"arn:aws:scheduler:local:" + accountID + ":schedule/default/streamops-" + function},
		Detail:     detail,
	}
}
