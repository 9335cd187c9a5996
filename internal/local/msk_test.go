package local

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambdacontext"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	sevents "github.com/streamops/streamops/events"
	"github.com/streamops/streamops/events/eventstest"
	"github.com/streamops/streamops/internal/backoff"
	"github.com/streamops/streamops/internal/bus"
	"github.com/streamops/streamops/internal/eventsource"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/stream"
	"github.com/streamops/streamops/internal/testenv"
)

var quiet = slog.New(slog.DiscardHandler)

// broker starts kfake with a 3-partition topic and returns its address.
func broker(t *testing.T, topic string) []string {
	t.Helper()
	return testenv.Broker(t, kfake.SeedTopics(3, topic)).ListenAddrs()
}

// produce writes n keyed records with seed-003 headers and returns them as
// the broker stored them (offsets, partitions, timestamps).
func produce(t *testing.T, brokers []string, topic string, n int) []*kgo.Record {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.RecordPartitioner(kgo.StickyKeyPartitioner(nil)))
	require.NoError(t, err)
	defer cl.Close()
	var out []*kgo.Record
	for i := range n {
		r := &kgo.Record{Topic: topic, Key: fmt.Appendf(nil, "task-%d", i), Value: fmt.Appendf(nil, `{"n":%d}`, i),
			Headers: []kgo.RecordHeader{{Key: bus.HeaderContentType, Value: []byte(bus.ContentTypeJSON)}, {Key: bus.HeaderSchemaVersion, Value: []byte("1.0.0")}}}
		require.NoError(t, cl.ProduceSync(context.Background(), r).FirstErr())
		out = append(out, r)
	}
	return out
}

// committed is the group's committed offset per partition.
func committed(t *testing.T, brokers []string, group, topic string) map[int32]int64 {
	t.Helper()
	out, err := committedOffsets(brokers, group, topic)
	require.NoError(t, err)
	return out
}

// committedOffsets is committed for goroutines other than the test's.
func committedOffsets(brokers []string, group, topic string) (map[int32]int64, error) {
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...))
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	out := map[int32]int64{}
	offs, err := kadm.NewClient(cl).FetchOffsets(context.Background(), group)
	if errors.Is(err, kerr.GroupIDNotFound) {
		return out, nil // nothing committed yet
	}
	if err != nil {
		return nil, err
	}
	offs.Each(func(o kadm.OffsetResponse) {
		if o.Topic == topic {
			out[o.Partition] = o.At
		}
	})
	return out, nil
}

// ends is the end offset per partition.
func ends(recs []*kgo.Record) map[int32]int64 {
	out := map[int32]int64{}
	for _, r := range recs {
		out[r.Partition] = max(out[r.Partition], r.Offset+1)
	}
	return out
}

// recorder is a KafkaFunction that keeps every event it got and answers
// with the errors in fail, one per call, then nil.
type recorder struct {
	mu     sync.Mutex
	events []events.KafkaEvent
	ctxs   []context.Context
	fail   []error
	// failAll, when set, is returned by every call after fail's.
	failAll error
	block   chan struct{} // when set, each call waits for it
	calls   chan struct{}
}

func newRecorder(fail ...error) *recorder {
	return &recorder{fail: fail, calls: make(chan struct{}, 100)}
}

func (r *recorder) handle(ctx context.Context, ev events.KafkaEvent) error {
	r.mu.Lock()
	r.events = append(r.events, ev)
	r.ctxs = append(r.ctxs, ctx)
	var err error
	if len(r.fail) > 0 {
		err, r.fail = r.fail[0], r.fail[1:]
	} else {
		err = r.failAll
	}
	block := r.block
	r.mu.Unlock()
	r.calls <- struct{}{}
	if block != nil {
		<-block
	}
	return err
}

func (r *recorder) records() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, ev := range r.events {
		for _, recs := range ev.Records {
			n += len(recs)
		}
	}
	return n
}

// pollerOpts tune startPoller.
type pollerOpts struct {
	// settings default to the deployed ones (eventsource.Deployed).
	settings *eventsource.Settings
	retry    backoff.Policy
	// sleep defaults to a real timer.
	sleep func(context.Context, time.Duration) bool
}

// settings is eventsource.Deployed() changed by edit.
func settings(edit func(*eventsource.Settings)) *eventsource.Settings {
	s := eventsource.Deployed()
	edit(&s)
	return &s
}

func startPoller(t *testing.T, brokers []string, topic string, h KafkaFunction, opts ...pollerOpts) (*poller, context.CancelFunc, chan struct{}) {
	t.Helper()
	var o pollerOpts
	if len(opts) > 0 {
		o = opts[0]
	}
	if o.retry == nil {
		o.retry = backoff.Schedule{20 * time.Millisecond}
	}
	p, err := newPoller(Mapping{Function: FnTaskProcessor, Topic: topic, Handler: h, Timeout: 5 * time.Second,
		Retry: o.retry, Settings: o.settings, Sleep: o.sleep}, bus.Config{Brokers: brokers}, "arn:aws:kafka:local:000000000000:cluster/test/x", quiet)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); p.run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	return p, cancel, done
}

// produceTo writes n records to one partition, stamped at ts (now when
// zero), and returns them as the broker stored them.
func produceTo(t *testing.T, brokers []string, topic string, partition int32, n int, ts time.Time) []*kgo.Record {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	require.NoError(t, err)
	defer cl.Close()
	var out []*kgo.Record
	for i := range n {
		r := &kgo.Record{Topic: topic, Partition: partition, Timestamp: ts,
			Key: fmt.Appendf(nil, "task-p%d-%d", partition, i), Value: fmt.Appendf(nil, `{"p":%d,"n":%d}`, partition, i),
			Headers: []kgo.RecordHeader{{Key: bus.HeaderContentType, Value: []byte(bus.ContentTypeJSON)}, {Key: bus.HeaderSchemaVersion, Value: []byte("1.0.0")}}}
		require.NoError(t, cl.ProduceSync(context.Background(), r).FirstErr())
		out = append(out, r)
	}
	return out
}

func waitCalls(t *testing.T, r *recorder, n int) {
	t.Helper()
	for range n {
		select {
		case <-r.calls:
		case <-time.After(20 * time.Second):
			t.Fatalf("the function was not invoked %d times", n)
		}
	}
}

func TestMappingDeliversLambdaShapedBatchesAndCommitsOnlyOnSuccess(t *testing.T) {
	brokers := broker(t, "tasks")
	recs := produceTo(t, brokers, "tasks", 1, 6, time.Time{})
	transient := errors.New("store unreachable")
	r := newRecorder(transient, transient)
	_, _, _ = startPoller(t, brokers, "tasks", r.handle, pollerOpts{settings: settings(func(s *eventsource.Settings) { s.BisectBatchOnFunctionError = false })})
	waitCalls(t, r, 3)

	require.Eventually(t, func() bool {
		return assert.ObjectsAreEqual(ends(recs), committed(t, brokers, ConsumerGroup(FnTaskProcessor), "tasks"))
	}, 10*time.Second, 20*time.Millisecond, "offsets are committed once the function succeeded")

	r.mu.Lock()
	defer r.mu.Unlock()
	// The first poll may hold only the partitions whose fetch offsets were
	// ready, so the records can arrive in more than one batch; the batch that
	// failed must come back unchanged until it succeeds.
	require.GreaterOrEqual(t, len(r.events), 3, "two failures, then the same batch succeeds")
	for i := 1; i < 3; i++ {
		assertSameBatch(t, r.events[0], r.events[i], "delivery %d retries the batch that failed, unchanged", i+1)
	}
	merged := events.KafkaEvent{EventSource: r.events[2].EventSource, EventSourceARN: r.events[2].EventSourceARN,
		BootstrapServers: r.events[2].BootstrapServers, Records: map[string][]events.KafkaRecord{}}
	for _, ev := range r.events[2:] {
		for key, krecs := range ev.Records {
			merged.Records[key] = append(merged.Records[key], krecs...)
		}
	}
	assertSameBatch(t, stream.ToKafkaEvent(recs, brokers[0], "arn:aws:kafka:local:000000000000:cluster/test/x"), merged,
		"the successful deliveries hold every record once, in order, shaped as Lambda's")
	for i := range r.events {
		lc, ok := lambdacontext.FromContext(r.ctxs[i])
		require.True(t, ok)
		assert.Equal(t, functionARN(FnTaskProcessor), lc.InvokedFunctionArn)
		_, hasDeadline := r.ctxs[i].Deadline()
		assert.True(t, hasDeadline)
	}
	assert.Equal(t, "aws:kafka", r.events[0].EventSource)
	for key, krecs := range r.events[0].Records {
		for _, kr := range krecs {
			assert.Equal(t, fmt.Sprintf("%s-%d", kr.Topic, kr.Partition), key)
			assert.Len(t, kr.Headers, 2, "headers are one-entry maps of int8 arrays")
		}
	}
}

func TestMappingFinishesTheBatchUnderWayWhenStopped(t *testing.T) {
	brokers := broker(t, "workflows")
	recs := produce(t, brokers, "workflows", 4)
	r := newRecorder()
	r.block = make(chan struct{})
	p, cancel, done := startPoller(t, brokers, "workflows", r.handle)
	waitCalls(t, r, 1)
	cancel() // Ctrl-C while the batch runs
	select {
	case <-done:
		t.Fatal("the poller stopped before the batch under way finished")
	case <-time.After(100 * time.Millisecond):
	}
	close(r.block)
	<-done
	// The first poll may hold only some partitions, each delivered on its
	// own; whatever was under way is what must be committed, and nothing
	// after it.
	r.mu.Lock()
	var batch []*kgo.Record
	for _, ev := range r.events {
		batch = append(batch, placed(ev)...)
	}
	batches := len(r.events)
	r.mu.Unlock()
	require.NotEmpty(t, batch)
	require.LessOrEqual(t, len(batch), len(recs))
	assert.Equal(t, ends(batch), committed(t, brokers, ConsumerGroup(FnTaskProcessor), "workflows"), "the finished batches were committed")
	assert.Equal(t, MappingStats{Batches: batches, Records: len(batch)}, p.Stats())
}

func TestMappingStoppedWhileRetryingCommitsNothingAndRedelivers(t *testing.T) {
	brokers := broker(t, "tasks")
	recs := produce(t, brokers, "tasks", 3)
	failing := newRecorder()
	failing.failAll = errors.New("down")
	_, cancel, done := startPoller(t, brokers, "tasks", failing.handle)
	waitCalls(t, failing, 2)
	cancel()
	<-done
	assert.Empty(t, committed(t, brokers, ConsumerGroup(FnTaskProcessor), "tasks"), "a batch that never succeeded is not committed")

	// The next start delivers the same records again, from the first.
	ok := newRecorder()
	startPoller(t, brokers, "tasks", ok.handle)
	require.Eventually(t, func() bool { return ok.records() == len(recs) }, 20*time.Second, 20*time.Millisecond)
	require.Eventually(t, func() bool {
		return assert.ObjectsAreEqual(ends(recs), committed(t, brokers, ConsumerGroup(FnTaskProcessor), "tasks"))
	}, 10*time.Second, 20*time.Millisecond)
}

func TestMappingTreatsAPanicAsAFailedInvocation(t *testing.T) {
	brokers := broker(t, "tasks")
	recs := produceTo(t, brokers, "tasks", 0, 2, time.Time{})
	r := newRecorder()
	var first sync.Once // Do counts a panicking call as done
	startPoller(t, brokers, "tasks", func(ctx context.Context, ev events.KafkaEvent) error {
		err := r.handle(ctx, ev)
		first.Do(func() { panic("nil map") })
		return err
	}, pollerOpts{settings: settings(func(s *eventsource.Settings) { s.BisectBatchOnFunctionError = false })})
	require.Eventually(t, func() bool {
		return assert.ObjectsAreEqual(ends(recs), committed(t, brokers, ConsumerGroup(FnTaskProcessor), "tasks"))
	}, 20*time.Second, 20*time.Millisecond)
	r.mu.Lock()
	defer r.mu.Unlock()
	require.GreaterOrEqual(t, len(r.events), 2)
	assertSameBatch(t, r.events[0], r.events[1], "the batch that panicked is delivered again")
}

// assertSameBatch asserts that two invocations carried the same batch,
// compared as the JSON Lambda would send.
func assertSameBatch(t *testing.T, want, got events.KafkaEvent, msgAndArgs ...any) {
	t.Helper()
	w, err := json.Marshal(want)
	require.NoError(t, err)
	g, err := json.Marshal(got)
	require.NoError(t, err)
	assert.JSONEq(t, string(w), string(g), msgAndArgs...)
}

// placed is one invocation's records with the partition and offset the
// broker gave them, for ends.
func placed(ev events.KafkaEvent) []*kgo.Record {
	var out []*kgo.Record
	for _, krecs := range ev.Records {
		for _, kr := range krecs {
			out = append(out, &kgo.Record{Partition: int32(kr.Partition), Offset: kr.Offset})
		}
	}
	return out
}

func TestSplitBySizeKeepsOrderUnderTheLimit(t *testing.T) {
	rec := func(n int) *kgo.Record { return &kgo.Record{Value: make([]byte, n)} }
	tests := []struct {
		name  string
		sizes []int
		want  []int // batch lengths
	}{
		{"one batch", []int{10, 10, 10}, []int{3}},
		{"split at the limit", []int{60, 40, 1}, []int{2, 1}},
		{"an oversize record alone", []int{10, 200, 10}, []int{1, 1, 1}},
		{"single", []int{5}, []int{1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var recs []*kgo.Record
			for _, n := range tc.sizes {
				recs = append(recs, rec(n))
			}
			var got []int
			var flat []*kgo.Record
			for _, b := range splitBySize(recs, 100) {
				got = append(got, len(b))
				flat = append(flat, b...)
			}
			assert.Equal(t, tc.want, got)
			assert.Equal(t, recs, flat)
		})
	}
}

// failingOn is a KafkaFunction that fails every batch holding a record at
// one of the offsets in fail (of any partition) until that record was
// delivered failFor times, and records, per invocation, the offsets it got.
type failingOn struct {
	fail    map[int64]bool
	failFor int
	mu      sync.Mutex
	got     [][]int64
	n       map[int64]int
	// failedFrom is the first offset of the batch that failed last.
	failedFrom int64
}

func (f *failingOn) handle(_ context.Context, ev events.KafkaEvent) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.n == nil {
		f.n = map[int64]int{}
	}
	var offsets []int64
	bad := false
	for _, krecs := range ev.Records {
		for _, kr := range krecs {
			offsets = append(offsets, kr.Offset)
			f.n[kr.Offset]++
			bad = bad || f.fail[kr.Offset] && f.n[kr.Offset] <= f.failFor
		}
	}
	f.got = append(f.got, offsets)
	if bad {
		f.failedFrom = slices.Min(offsets)
		return fmt.Errorf("dependency down: %w", store.ErrUnavailable)
	}
	return nil
}

// deliveries is how often each offset was delivered, and the batch sizes
// in order.
func (f *failingOn) deliveries() (map[int64]int, []int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	sizes := []int{}
	for _, offs := range f.got {
		sizes = append(sizes, len(offs))
	}
	return maps.Clone(f.n), sizes
}

// TestMappingRetriesAFailingBatchUntilItSucceedsAndNeverCommitsPastIt: a
// record whose batch fails more often than the old limit of ten retries
// is delivered again until it succeeds, bisected down to itself when so
// configured, while nothing at or after it is committed; then everything
// is committed once, and nothing is dead-lettered by the mapping.
func TestMappingRetriesAFailingBatchUntilItSucceedsAndNeverCommitsPastIt(t *testing.T) {
	const failFor = 12
	tests := []struct {
		name   string
		bisect bool
		fail   []int64 // offsets whose batch fails failFor times
		// wantSizes are the batch sizes of the first invocations.
		wantSizes []int
	}{
		{"every record fails, bisected down to single records", true, []int64{0, 1, 2, 3}, []int{4, 2, 1, 1}},
		{"one record fails, bisecting frees the ones before it", true, []int64{2}, []int{4, 2, 2, 1}},
		{"one record fails, no bisecting: the whole batch waits", false, []int64{2}, []int{4, 4, 4, 4}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			brokers := broker(t, "tasks")
			recs := produceTo(t, brokers, "tasks", 0, 4, time.Time{})
			fn := &failingOn{fail: map[int64]bool{}, failFor: failFor}
			for _, o := range tc.fail {
				fn.fail[o] = true
			}
			// Each wait before a retry notes what is committed then, and
			// where the batch that failed begins.
			var mu sync.Mutex
			var duringRetries [][2]int64
			sleep := func(ctx context.Context, _ time.Duration) bool {
				offs, err := committedOffsets(brokers, ConsumerGroup(FnTaskProcessor), "tasks")
				fn.mu.Lock()
				from := fn.failedFrom
				fn.mu.Unlock()
				mu.Lock()
				defer mu.Unlock()
				if err == nil {
					duringRetries = append(duringRetries, [2]int64{offs[0], from})
				}
				return ctx.Err() == nil
			}
			p, _, _ := startPoller(t, brokers, "tasks", fn.handle, pollerOpts{sleep: sleep,
				settings: settings(func(s *eventsource.Settings) { s.BisectBatchOnFunctionError = tc.bisect })})
			// The poller counts a commit once the broker has answered it,
			// so the count may trail the offsets a moment: wait for both.
			require.Eventually(t, func() bool {
				return assert.ObjectsAreEqual(ends(recs), committed(t, brokers, ConsumerGroup(FnTaskProcessor), "tasks")) &&
					p.Stats().Records >= len(recs)
			}, 20*time.Second, 20*time.Millisecond, "every record is delivered until it succeeds, then committed")

			n, sizes := fn.deliveries()
			for _, o := range tc.fail {
				assert.Equal(t, failFor+1, n[o], "offset %d: %d failed deliveries, then the one that succeeded", o, failFor)
			}
			require.GreaterOrEqual(t, len(sizes), len(tc.wantSizes))
			assert.Equal(t, tc.wantSizes, sizes[:len(tc.wantSizes)], "batch sizes")
			mu.Lock()
			require.NotEmpty(t, duringRetries)
			for _, w := range duringRetries {
				assert.LessOrEqual(t, w[0], w[1], "while a batch fails, nothing from its first record on is committed")
			}
			mu.Unlock()
			stats := p.Stats()
			assert.Equal(t, len(recs), stats.Records, "each record committed once, after it succeeded")
			assert.GreaterOrEqual(t, stats.Failures, failFor)
		})
	}
}

// TestARecordIsDeliveredWhateverItsAge: the mapping has no maximum record
// age, as deployed, so no record is skipped for being old, however it
// reached the topic: an event two days old republished or replayed now, a
// dead letter requeued with its original record timestamp, and a record
// stamped eight days ago, past the longest age Lambda accepts.
func TestARecordIsDeliveredWhateverItsAge(t *testing.T) {
	require.Equal(t, eventsource.Unlimited, eventsource.Deployed().MaximumRecordAgeInSeconds, "internal/eventsource/mapping.json, as deployed")
	brokers := broker(t, sevents.TopicTasks)
	twoDaysAgo, eightDaysAgo := time.Now().Add(-48*time.Hour), time.Now().Add(-8*24*time.Hour)
	client, err := bus.New(bus.Config{Brokers: brokers})
	require.NoError(t, err)
	t.Cleanup(client.Close)
	stamped := func(at time.Time) func(t *testing.T, env sevents.Envelope) {
		return func(t *testing.T, env sevents.Envelope) {
			r, err := bus.NewRecord(env, "")
			require.NoError(t, err)
			r.Timestamp = at
			cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...))
			require.NoError(t, err)
			defer cl.Close()
			require.NoError(t, cl.ProduceSync(context.Background(), r).FirstErr())
		}
	}

	tests := []struct {
		name    string
		produce func(t *testing.T, env sevents.Envelope)
		eventAt time.Time
	}{
		{"an event two days old, republished now", func(t *testing.T, env sevents.Envelope) {
			require.NoError(t, client.Publish(context.Background(), env))
		}, twoDaysAgo},
		{"an event two days old, replayed to its topic now", func(t *testing.T, env sevents.Envelope) {
			require.NoError(t, client.PublishTo(context.Background(), sevents.TopicTasks, env))
		}, twoDaysAgo},
		{"a dead letter of it requeued with its record's timestamp", stamped(twoDaysAgo), twoDaysAgo},
		{"a fresh event in a record stamped eight days ago", stamped(eightDaysAgo), time.Now()},
	}
	want := map[string]bool{}
	for _, tt := range tests {
		env := eventstest.TaskCreated(eventstest.NewUUID(), eventstest.NewUUID(), "data_export", tt.eventAt, map[string]string{"format": "csv"})
		tt.produce(t, env)
		want[env.EventID] = true
	}

	r := newRecorder()
	startPoller(t, brokers, sevents.TopicTasks, r.handle)
	got := map[string]bool{}
	require.Eventually(t, func() bool {
		r.mu.Lock()
		defer r.mu.Unlock()
		for _, ev := range r.events {
			for _, krecs := range ev.Records {
				for _, kr := range krecs {
					value, err := base64.StdEncoding.DecodeString(kr.Value)
					require.NoError(t, err)
					env, err := sevents.Decode(value)
					require.NoError(t, err)
					got[env.EventID] = true
				}
			}
		}
		return len(got) == len(want)
	}, 20*time.Second, 20*time.Millisecond)
	assert.Equal(t, want, got, "every record reached the function")
}

func TestAFailingPartitionDoesNotHoldBackTheOthers(t *testing.T) {
	brokers := broker(t, "tasks")
	failing := produceTo(t, brokers, "tasks", 0, 2, time.Time{})
	var mu sync.Mutex
	calls := map[int]int{} // invocations per partition
	h := func(_ context.Context, ev events.KafkaEvent) error {
		mu.Lock()
		defer mu.Unlock()
		for _, krecs := range ev.Records {
			calls[int(krecs[0].Partition)]++
			if krecs[0].Partition == 0 {
				return errors.New("store unreachable")
			}
		}
		return nil
	}
	// Partition 0 waits an hour between retries: without isolation,
	// nothing else would move for the rest of the test.
	startPoller(t, brokers, "tasks", h, pollerOpts{retry: backoff.Schedule{time.Hour}})
	require.Eventually(t, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return calls[0] == 1
	}, 20*time.Second, 10*time.Millisecond, "partition 0's batch failed")

	// Records produced while partition 0 is failing flow on the others.
	var others []*kgo.Record
	others = append(others, produceTo(t, brokers, "tasks", 1, 3, time.Time{})...)
	others = append(others, produceTo(t, brokers, "tasks", 2, 3, time.Time{})...)
	require.Eventually(t, func() bool {
		return assert.ObjectsAreEqual(ends(others), committed(t, brokers, ConsumerGroup(FnTaskProcessor), "tasks"))
	}, 20*time.Second, 20*time.Millisecond, "partitions 1 and 2 are delivered and committed meanwhile")
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, 1, calls[0], "partition 0 waits for its retry")
	_, ok := committed(t, brokers, ConsumerGroup(FnTaskProcessor), "tasks")[failing[0].Partition]
	assert.False(t, ok, "partition 0 has nothing committed")
}
