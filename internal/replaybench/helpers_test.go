package replaybench_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/events/eventstest"
	"github.com/streamops/streamops/internal/history"
	"github.com/streamops/streamops/internal/status"
	"github.com/streamops/streamops/internal/store"
)

// eventBytes is the size of a seeded event's JSON, as the produce rows'
// records (internal/bus).
const eventBytes = 1024

// seedBatch is how many events one bulk insert of a seed stores.
const seedBatch = 1000

// taskEvents returns n task.created events of about eventBytes of JSON
// of the execution correlationID, built by events.NewEvent as the
// functions build what they emit.
func taskEvents(tb testing.TB, correlationID string, n int) []events.Envelope {
	tb.Helper()
	meta := &events.Metadata{Source: "api-gateway", CorrelationID: correlationID}
	build := func(pad string) events.Envelope {
		env, err := events.NewEvent(events.TaskCreatedPayload{TaskID: events.NewTaskID(), Type: events.TaskDataExport, MaxRetries: 3,
			CreatedAt: events.Now(), Data: eventstest.MustJSON(map[string]string{"format": "csv", "pad": pad})}, meta)
		require.NoError(tb, err)
		return env
	}
	pad := strings.Repeat("x", max(0, eventBytes-len(eventstest.MustJSON(build("")))))
	out := make([]events.Envelope, n)
	for i := range out {
		out[i] = build(pad)
	}
	return out
}

// seedHistory stores n task.created events (taskEvents) of an execution
// of their own, seedBatch to a bulk insert, and returns them with the
// filter that selects exactly them: their execution. (Not their time
// window: on FerretDB a page of a timestamp range after a cursor comes
// back out of order, so a replay of one skips events; reported in
// issue 25's measurements.)
func seedHistory(tb testing.TB, s *store.Store, n int) ([]events.Envelope, store.ReplayFilter) {
	tb.Helper()
	ctx := context.Background()
	execution := "seed-" + uuid.NewString()
	envs := taskEvents(tb, execution, n)
	for i := 0; i < n; i += seedBatch {
		_, err := s.InsertEvents(ctx, envs[i:min(n, i+seedBatch)])
		require.NoError(tb, err)
	}
	return envs, store.ReplayFilter{ExecutionID: execution}
}

// replayAll runs a whole replay of cfg as the retry-sweeper does, without
// its deadline: Start, then RunDue until the session has ended. It
// returns the ended session.
func replayAll(ctx context.Context, tb testing.TB, r *history.Replayer, s *store.Store, cfg store.ReplayConfig) store.ReplaySession {
	tb.Helper()
	rs, err := r.Start(ctx, cfg)
	require.NoError(tb, err)
	for !status.ReplayIsFinal(rs.Status) {
		_, err := r.RunDue(ctx)
		require.NoError(tb, err)
		rs, err = s.GetReplaySession(ctx, rs.ID)
		require.NoError(tb, err)
	}
	return rs
}
