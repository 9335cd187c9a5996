package embedded

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.mongodb.org/mongo-driver/bson"

	"github.com/streamops/streamops/internal/store/storetest"
)

// TestPacerYieldsToCommitsOnly: a compaction pauses after each slice of
// work while commits come, long enough that it works a quarter of the
// time, and never on an idle store or once Close hurries it.
func TestPacerYieldsToCommitsOnly(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	for _, tc := range []struct {
		name string
		// works are the durations of work between steps.
		works []time.Duration
		// commitAt is a commit's time after the compaction began (the
		// first step); negative: before it, the commit that set it off.
		commitAt   time.Duration
		hurry      bool
		wantSleeps []time.Duration
	}{
		{name: "busy: a slice done pauses three times its length",
			works: []time.Duration{0, time.Millisecond}, commitAt: 0,
			wantSleeps: []time.Duration{3 * time.Millisecond}},
		{name: "busy: work shorter than a slice does not pause",
			works: []time.Duration{0, 300 * time.Microsecond, 300 * time.Microsecond}},
		{name: "busy: short steps add up to a slice",
			works:      []time.Duration{0, 600 * time.Microsecond, 600 * time.Microsecond, 100 * time.Microsecond},
			wantSleeps: []time.Duration{3600 * time.Microsecond}},
		{name: "busy: a stretched slice pauses for ten slices' worth at most",
			works: []time.Duration{0, 50 * time.Millisecond}, wantSleeps: []time.Duration{30 * time.Millisecond}},
		{name: "busy then idle: pauses until the last commit is a window old",
			works:      []time.Duration{0, 2 * time.Millisecond, 90 * time.Millisecond, 2 * time.Millisecond},
			wantSleeps: []time.Duration{6 * time.Millisecond, 30 * time.Millisecond}},
		{name: "only the commit that set it off, no pause",
			works: []time.Duration{0, 2 * time.Millisecond, 2 * time.Millisecond}, commitAt: -time.Microsecond},
		{name: "hurried by Close, no pause",
			works: []time.Duration{0, 2 * time.Millisecond}, hurry: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			now := t0
			var last atomic.Int64
			last.Store(t0.Add(tc.commitAt).UnixNano())
			var hurry atomic.Bool
			hurry.Store(tc.hurry)
			var slept []time.Duration
			var paused atomic.Int64
			p := newPacer(&last, &hurry, &paused)
			p.now = func() time.Time { return now }
			p.sleep = func(d time.Duration) { slept = append(slept, d); now = now.Add(d) }
			for _, w := range tc.works {
				now = now.Add(w)
				p.step()
			}
			assert.Equal(t, tc.wantSleeps, slept)
			var sum time.Duration
			for _, d := range slept {
				sum += d
			}
			assert.Equal(t, sum, time.Duration(paused.Load()), "the pauses add up")
		})
	}
}

// TestJournalStoreCompactionYieldsToCommits: a compaction of a store of
// some size, with commits coming all along, pauses for them, still ends,
// and leaves a snapshot and journal that hold every commit; on a store
// nobody writes to it does not pause.
func TestJournalStoreCompactionYieldsToCommits(t *testing.T) {
	storetest.Require(t, storetest.EmbeddedFiles)
	dir := t.TempDir()
	db, j := openJournal(t, dir, 1) // compact whenever the journal outgrows the snapshot
	// The seed's documents of many small fields make a compaction encode
	// for milliseconds, many commits' worth (each one fsyncs); a slice of
	// a microsecond makes each one pause, whatever the machine's speed,
	// and the pauses are counted, not slept, so the compactions take as
	// long as ever.
	j.slice = time.Microsecond
	j.sleep = func(time.Duration) {}
	ctx := context.Background()
	pad := strings.Repeat("x", 2048)
	docs := make([]any, 1000)
	for i := range docs {
		d := bson.D{{Key: "_id", Value: fmt.Sprintf("seed-%d", i)}}
		for f := range 200 {
			d = append(d, bson.E{Key: fmt.Sprintf("f%d", f), Value: f})
		}
		docs[i] = d
	}
	_, err := db.Collection("events").InsertMany(ctx, docs)
	require.NoError(t, err)
	j.compacts.Wait()
	assert.Zero(t, j.CompactionPauses(), "a compaction after one commit, with no commit beside it, does not pause")

	// Commits beside compactions of the whole store: the journal outgrows
	// the 2 MB snapshot after about a thousand of them.
	for i, done := 0, j.Snapshots()+3; j.Snapshots() < done; i++ {
		_, err := db.Collection("events").InsertOne(ctx, bson.M{"_id": fmt.Sprintf("e-%d", i), "pad": pad})
		require.NoError(t, err)
		require.Less(t, i, 100_000, "the journal was never compacted")
	}
	assert.Positive(t, j.CompactionPauses(), "a compaction beside commits pauses for them")
	assert.Positive(t, j.CompactionTime(), "the compactions' time is kept")
	j.compacts.Wait()
	assert.Equal(t, contents(t, j.prev), reload(t, dir))
}
