package local

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
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

	"github.com/streamops/streamops/internal/backoff"
	"github.com/streamops/streamops/internal/bus"
	"github.com/streamops/streamops/internal/eventsource"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/store/storetest"
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
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...))
	require.NoError(t, err)
	defer cl.Close()
	out := map[int32]int64{}
	offs, err := kadm.NewClient(cl).FetchOffsets(context.Background(), group)
	if errors.Is(err, kerr.GroupIDNotFound) {
		return out // nothing committed yet
	}
	require.NoError(t, err)
	offs.Each(func(o kadm.OffsetResponse) {
		if o.Topic == topic {
			out[o.Partition] = o.At
		}
	})
	return out
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
	// onFailure defaults to a fresh store on the test's engine.
	onFailure DeadLetterStore
	retry     backoff.Policy
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
	if o.onFailure == nil {
		o.onFailure = storetest.Open(t, store.Config{})
	}
	if o.retry == nil {
		o.retry = backoff.Schedule{20 * time.Millisecond}
	}
	p, err := newPoller(Mapping{Function: FnTaskProcessor, Topic: topic, Handler: h, Timeout: 5 * time.Second,
		Retry: o.retry, Settings: o.settings, OnFailure: o.onFailure}, bus.Config{Brokers: brokers}, "arn:aws:kafka:local:000000000000:cluster/test/x", quiet)
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
	_, cancel, done := startPoller(t, brokers, "tasks", failing.handle, pollerOpts{settings: settings(func(s *eventsource.Settings) { s.MaximumRetryAttempts = eventsource.Unlimited })})
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
