package replaybench_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/history"
	"github.com/streamops/streamops/internal/status"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/store/storetest"
	"github.com/streamops/streamops/internal/testenv"
)

// scaleEventsEnv sets how many events TestReplayAtScale replays.
const scaleEventsEnv = "STREAMOPS_TEST_REPLAY_EVENTS"

// scaleEvents is TestReplayAtScale's size when scaleEventsEnv is unset:
// four of a replay's batches and two of the seed's, so every page,
// checkpoint and publish follows another, in seconds. make bench runs
// 100,000 for docs/performance.md's figure.
const scaleEvents = 4 * replayBatch

// TestReplayAtScale replays a history of scaleEventsEnv events (bulk
// inserted, 1 KiB each) at an unlimited rate, as the retry-sweeper runs
// replays without its deadline, and checks that every matched event was
// replayed exactly once: the session's counts, the copies stored, and the
// records on Kafka, one per original. It logs the seed's and the
// replay's duration and rate on a "scale:" line, which make bench reads
// (docs/performance.md). make test-scale runs it alone on MongoDB; the
// embedded engine does not hold such volumes (storetest.Volume).
func TestReplayAtScale(t *testing.T) {
	storetest.Require(t, storetest.Volume)
	n := testenv.EnvInt(t, scaleEventsEnv, scaleEvents)
	ctx := context.Background()
	env := testenv.New(t, testenv.Options{})
	r := &history.Replayer{Store: env.Store, Emitter: env.Emitter, Logger: env.Logger}

	start := time.Now()
	seeded, filter := seedHistory(t, env.Store, n)
	seedTook := time.Since(start)
	matched, err := env.Store.CountEvents(ctx, filter)
	require.NoError(t, err)
	require.EqualValues(t, n, matched)

	start = time.Now()
	const who = "replay-at-scale"
	rs := replayAll(ctx, t, r, env.Store, store.ReplayConfig{Filter: filter, BatchSize: replayBatch, RatePerSecond: 100_000, UserID: who})
	took := time.Since(start)
	t.Logf("scale: events=%d seed-s=%.1f seed-events/s=%.0f replay-s=%.1f replay-events/s=%.0f",
		n, seedTook.Seconds(), float64(n)/seedTook.Seconds(), took.Seconds(), float64(rs.ReplayedEvents)/took.Seconds())
	require.Equal(t, status.ReplayCompleted, rs.Status, "%+v", rs.Errors)
	assert.EqualValues(t, matched, rs.TotalEvents)
	assert.EqualValues(t, matched, rs.ReplayedEvents)
	assert.Zero(t, rs.FailedEvents)

	// The copies carry the replaying principal: exactly one per original.
	copies, err := env.Store.CountEvents(ctx, store.ReplayFilter{UserID: who})
	require.NoError(t, err)
	assert.EqualValues(t, n, copies, "copies stored")

	originals := make(map[string]bool, n)
	for _, e := range seeded {
		originals[e.EventID] = true
	}
	published := map[string]int{}
	records := 0
	testenv.Scan(t, env.Brokers, events.TopicTasks, 2*time.Minute, func(rec *kgo.Record) bool {
		records++
		e, err := events.Decode(rec.Value)
		require.NoError(t, err)
		require.NotNil(t, e.Metadata)
		published[e.Metadata.ReplayOf]++
		return records == n
	})
	assert.Len(t, published, n, "originals published")
	assert.EqualValues(t, n, topicRecords(t, env.Brokers, events.TopicTasks), "records on the topic: none twice")
	for id, c := range published {
		if !originals[id] || c != 1 {
			t.Fatalf("%s published %d times, an original: %v", id, c, originals[id])
		}
	}
}

// topicRecords is how many records topic holds: the sum of its
// partitions' end offsets.
func topicRecords(t *testing.T, brokers []string, topic string) int64 {
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...))
	require.NoError(t, err)
	defer cl.Close()
	ends, err := kadm.NewClient(cl).ListEndOffsets(context.Background(), topic)
	require.NoError(t, err)
	var sum int64
	ends.Each(func(o kadm.ListedOffset) { sum += o.Offset })
	return sum
}
