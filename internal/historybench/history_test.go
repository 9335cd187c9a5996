package historybench_test

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/mongo/options"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/store/storetest"
	"github.com/streamops/streamops/internal/testenv"
)

// historyEventsEnv sets how many events TestHistoryAtVolume stores.
const historyEventsEnv = "STREAMOPS_TEST_HISTORY_EVENTS"

// ciEvents is TestHistoryAtVolume's size when historyEventsEnv is unset:
// two inserts of a batch and a TTL sweep's worth, in seconds. make history
// stores 200,000 for docs/capacity/constants.json.
const ciEvents = 2 * insertBatch

// insertBatch is how many events one InsertEvents stores, as a processor
// batch's bulk write.
const insertBatch = 1000

// archiveBatch is the archiver's batch (cmd/archiver, docs/reliability.md).
const archiveBatch = 500

// TestHistoryAtVolume stores n workflow lifecycle events in events with
// every index, reads the collection's data and index bytes (collStats)
// as stored and once published, then archives them all as the archiver
// does and times the TTL monitor deleting the n expired at once. It
// logs a "history:" line per figure, which make history prints for
// docs/capacity/constants.json. The TTL part needs a server
// that sweeps within the test (STREAMOPS_TEST_TTL_SWEEP; FerretDB's
// `up --ttl-sweep 1`).
func TestHistoryAtVolume(t *testing.T) {
	storetest.Require(t, storetest.Volume)
	n := testenv.EnvInt(t, historyEventsEnv, ciEvents)
	ctx := context.Background()

	// Events are stored two hours in the past, so the archiver finds them
	// due under a one-hour TTL.
	var offset atomic.Int64
	offset.Store(int64(-2 * time.Hour))
	cfg := storetest.Configure(t, store.Config{EventTTL: time.Hour,
		Now: func() time.Time { return time.Now().Add(time.Duration(offset.Load())) }})
	s, err := store.Open(ctx, cfg)
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close(context.Background()) })
	client, err := mongo.Connect(ctx, options.Client().ApplyURI(cfg.URI))
	require.NoError(t, err)
	t.Cleanup(func() { _ = client.Disconnect(context.Background()) })
	db := client.Database(cfg.Database)

	start := time.Now()
	var pending []string
	for stored := 0; stored < n; {
		envs := executions(t, min(insertBatch, n-stored))
		_, err := s.InsertEvents(ctx, envs)
		require.NoError(t, err)
		for _, e := range envs {
			if e.EventType != events.WebhookReceived {
				pending = append(pending, e.EventID)
			}
		}
		stored += len(envs)
	}
	took := time.Since(start)
	t.Logf("history: insert events=%d s=%.1f events/s=%.0f", n, took.Seconds(), float64(n)/took.Seconds())

	// The bytes as stored, each event written once (what MongoDB keeps
	// of it: an update rewrites its document in place).
	// collStats' count and size are estimates from the table's statistics
	// on DocumentDB once a collection is large; its storageSize and index
	// sizes are the relations' bytes.
	count, err := db.Collection(store.CollEvents).CountDocuments(ctx, bson.D{})
	require.NoError(t, err)
	require.EqualValues(t, n, count)
	st := collStats(ctx, t, db, store.CollEvents)
	perMillion := func(b float64) float64 { return b * 1e6 / float64(n) }
	t.Logf("history: collstats events=%d data-bytes/M=%.0f storage-bytes/M=%.0f index-bytes/M=%.0f indexes=%d",
		n, perMillion(st.Size), perMillion(st.StorageSize), perMillion(st.TotalIndexSize), len(st.IndexSizes))
	want := 1 // _id
	for _, ix := range store.Indexes {
		if ix.Collection == store.CollEvents {
			want++
			assert.Contains(t, st.IndexSizes, ix.Name, "collStats names every index of store.Indexes")
		}
	}
	assert.Len(t, st.IndexSizes, want)
	var sum float64
	for _, ix := range st.largest() {
		sum += ix.bytes
		t.Logf("history: index name=%s bytes/M=%.0f share=%.3f", ix.name, perMillion(ix.bytes), ix.bytes/st.TotalIndexSize)
	}
	assert.InDelta(t, st.TotalIndexSize, sum, 1, "totalIndexSize is the sum of indexSizes")
	assert.Positive(t, st.TotalIndexSize)

	// Then published, as the processors publish what they store (the
	// archiver takes no event still waiting for its publish). On
	// PostgreSQL the update writes a new row version and its index
	// entries, kept until a vacuum: the bytes after it are FerretDB's.
	for i := 0; i < len(pending); i += insertBatch {
		require.NoError(t, s.MarkPublished(ctx, pending[i:min(len(pending), i+insertBatch)]...))
	}
	pst := collStats(ctx, t, db, store.CollEvents)
	t.Logf("history: collstats published=%d data-bytes/M=%.0f storage-bytes/M=%.0f index-bytes/M=%.0f",
		n, perMillion(pst.Size), perMillion(pst.StorageSize), perMillion(pst.TotalIndexSize))

	// Archive every event as the archiver does, dated an hour ahead so
	// that the TTL monitor deletes none meanwhile, then expire them all
	// at once and time the monitor working off the backlog.
	offset.Store(int64(time.Hour))
	start = time.Now()
	archived := 0
	for {
		k, err := s.ArchiveDue(ctx, archiveBatch)
		require.NoError(t, err)
		if k == 0 {
			break
		}
		archived += k
	}
	took = time.Since(start)
	require.Equal(t, n, archived)
	t.Logf("history: archive events=%d s=%.1f events/s=%.0f", n, took.Seconds(), float64(n)/took.Seconds())
	ast := collStats(ctx, t, db, store.CollEventsArchive)
	t.Logf("history: collstats archive=%d data-bytes/M=%.0f index-bytes/M=%.0f", n, perMillion(ast.Size), perMillion(ast.TotalIndexSize))

	sweep, err := time.ParseDuration(os.Getenv(storetest.EnvTTLSweep))
	if err != nil {
		t.Logf("history: ttl not measured: set %s to the server's TTL sweep (FerretDB up --ttl-sweep 1)", storetest.EnvTTLSweep)
		return
	}
	expired, err := db.Collection(store.CollEvents).UpdateMany(ctx, bson.D{},
		bson.M{"$set": bson.M{"ttl_expires_at": time.Now().Add(-time.Minute)}})
	require.NoError(t, err)
	require.EqualValues(t, n, expired.ModifiedCount)
	d := ttlDeletions(ctx, t, db.Collection(store.CollEvents), n, sweep)
	assert.Zero(t, d.left, "the TTL monitor deletes every archived event")
	t.Logf("history: ttl events=%d sweep-s=%.0f first-s=%.1f last-s=%.1f deleted/s=%.0f largest-sweep=%d",
		n, sweep.Seconds(), d.first.Seconds(), d.last.Seconds(), d.rate(), d.largestStep())
}

// executions returns n events of whole executions as the stack stores
// them (the last one cut at n): the webhook function's webhook.received,
// then the workflow's created, processing, one step.completed per step
// and completed, each with the metadata its producer sets.
func executions(tb testing.TB, n int) []events.Envelope {
	tb.Helper()
	steps := []string{"validate", "transform", "store"}
	out := make([]events.Envelope, 0, n+len(steps)+3)
	for len(out) < n {
		at := time.Now()
		wf, trace := events.NewWorkflowID(), "trace-"+events.NewEventID()[4:]
		user := fmt.Sprintf("user-%d", len(out)%97)
		hook := &events.Metadata{Source: "webhook", TraceID: trace, CorrelationID: wf, PartnerID: "stripe"}
		api := &events.Metadata{Source: "webhook", UserID: events.String(user), TraceID: trace, CorrelationID: wf, PartnerID: "stripe"}
		proc := &events.Metadata{Source: "workflow-processor", ProcessorID: "workflow-processor-1", UserID: events.String(user), TraceID: trace, CorrelationID: wf, PartnerID: "stripe"}
		tick := func() events.Time { at = at.Add(3 * time.Millisecond); return events.At(at) }
		add := func(p events.Payload, m *events.Metadata) {
			env, err := events.NewEventAt(p, m, events.NewEventID(), tick())
			require.NoError(tb, err)
			out = append(out, env)
		}
		add(events.WebhookReceivedPayload{Provider: "stripe", ProviderEventID: "evt_" + strings.ReplaceAll(wf[3:], "-", ""),
			ProviderEventType: "invoice.finalized", WebhookEventID: events.NewWebhookEventID()}, hook)
		add(events.WorkflowCreatedPayload{WorkflowID: wf, Name: "Invoice Sync", Steps: steps, Priority: events.PriorityMedium, CreatedAt: tick()}, api)
		add(events.WorkflowProcessingPayload{WorkflowID: wf, CurrentStep: steps[0]}, proc)
		for i, step := range steps {
			add(events.WorkflowStepCompletedPayload{WorkflowID: wf, StepName: step, StepIndex: i, CompletedAt: tick(), Duration: 12,
				Result: events.StepResult{RecordsProcessed: 1, ValidRecords: 1}}, proc)
		}
		add(events.WorkflowCompletedPayload{WorkflowID: wf, Name: "Invoice Sync", CompletedAt: tick(), Duration: 40, StepsCompleted: len(steps),
			Summary: events.WorkflowSummary{TotalRecords: 1, SuccessfulRecords: 1}}, proc)
	}
	return out[:n]
}

// stats is the part of collStats the measurement reads.
type stats struct {
	Size           float64            `bson:"size"`
	StorageSize    float64            `bson:"storageSize"`
	TotalIndexSize float64            `bson:"totalIndexSize"`
	IndexSizes     map[string]float64 `bson:"indexSizes"`
}

type indexSize struct {
	name  string
	bytes float64
}

// largest is the indexes by size, largest first.
func (s stats) largest() []indexSize {
	out := make([]indexSize, 0, len(s.IndexSizes))
	for name, b := range s.IndexSizes {
		out = append(out, indexSize{name, b})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].bytes != out[j].bytes {
			return out[i].bytes > out[j].bytes
		}
		return out[i].name < out[j].name
	})
	return out
}

// collStats runs collStats on coll (FerretDB and MongoDB both answer it;
// MongoDB deprecates it for $collStats, which FerretDB lacks storageStats
// of).
func collStats(ctx context.Context, tb testing.TB, db *mongo.Database, coll string) stats {
	tb.Helper()
	var raw bson.Raw
	require.NoError(tb, db.RunCommand(ctx, bson.D{{Key: "collStats", Value: coll}}).Decode(&raw))
	var s stats
	require.NoError(tb, bson.Unmarshal(raw, &s), "%s", raw)
	return s
}

// deletions is what the TTL monitor did to the archived events.
type deletions struct {
	// first and last are when the first and the last deletion were seen,
	// from the moment every event was due.
	first, last time.Duration
	// deleted is how many went, left how many stayed when it stopped.
	deleted, left int64
	// steps are the deletions seen at each poll.
	steps []int64
}

// rate is deletions per second from the first poll that saw one to the
// last: sweeps of equal batches apart, so the sweep interval is counted
// once per batch after the first.
func (d deletions) rate() float64 {
	if len(d.steps) < 2 || d.last <= d.first {
		return 0
	}
	return float64(d.deleted-d.steps[0]) / (d.last - d.first).Seconds()
}

func (d deletions) largestStep() int64 {
	var m int64
	for _, s := range d.steps {
		m = max(m, s)
	}
	return m
}

// ttlDeletions polls coll's count every quarter sweep until it is empty
// or no deletion was seen for ten sweeps.
func ttlDeletions(ctx context.Context, tb testing.TB, coll *mongo.Collection, n int, sweep time.Duration) deletions {
	tb.Helper()
	var d deletions
	start, prev := time.Now(), int64(n)
	lastChange := start
	for {
		time.Sleep(sweep / 4)
		left, err := coll.CountDocuments(ctx, bson.D{})
		require.NoError(tb, err)
		now := time.Since(start)
		if left < prev {
			if d.deleted == 0 {
				d.first = now
			}
			d.steps = append(d.steps, prev-left)
			d.deleted += prev - left
			d.last, lastChange, prev = now, time.Now(), left
		}
		if left == 0 || time.Since(lastChange) > 10*sweep+30*time.Second {
			d.left = left
			return d
		}
	}
}
