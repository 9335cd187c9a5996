package sweep_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/sweep"
	"github.com/streamops/streamops/internal/task"
	"github.com/streamops/streamops/internal/testenv"
)

// TestSweeperRunLogsAtInfoOnlyWhenItDidSomething: a run that found nothing
// to do logs "retry-sweeper run finished" at debug, so a schedule of
// seconds stays quiet at info; a run that did something logs it at info
// with what it did.
func TestSweeperRunLogsAtInfoOnlyWhenItDidSomething(t *testing.T) {
	for _, tc := range []struct {
		name    string
		prepare func(t *testing.T, h *harness)
		level   string
		counts  map[string]any
	}{
		{name: "idle", prepare: func(*testing.T, *harness) {}, level: "DEBUG", counts: map[string]any{}},
		{name: "published an event the inline path left", prepare: func(t *testing.T, h *harness) {
			env, err := events.NewEvent(events.WorkflowCreatedPayload{WorkflowID: events.NewWorkflowID(), Name: "n",
				Steps: []string{"validate"}, Priority: events.PriorityLow, CreatedAt: events.Now()}, nil)
			require.NoError(t, err)
			require.NoError(t, h.Store.InsertEvent(context.Background(), env))
			h.clock.Advance(31 * time.Second)
		}, level: "INFO", counts: map[string]any{"published": float64(1)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			tc.prepare(t, h)
			var logs testenv.Output
			retrier, err := task.NewRetrier(h.Store, h.Bus, h.Emitter, h.Logger)
			require.NoError(t, err)
			sw, err := sweep.New(sweep.Config{Store: h.Store, Publisher: h.Bus, Router: h.router, Tasks: retrier,
				Now: h.clock.Now, Logger: logs.DebugLogger()})
			require.NoError(t, err)
			_, err = sw.Run(t.Context())
			require.NoError(t, err)

			rec := logs.Record(t, "retry-sweeper run finished")
			assert.Equal(t, tc.level, rec["level"])
			assert.Equal(t, tc.counts, testenv.NonZero(rec["stats"]), "what the run did")
		})
	}
}
