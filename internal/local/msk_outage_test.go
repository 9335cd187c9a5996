package local

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/events/eventstest"
	"github.com/streamops/streamops/internal/bus"
	"github.com/streamops/streamops/internal/seedtest"
	"github.com/streamops/streamops/internal/status"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/store/storetest"
	"github.com/streamops/streamops/internal/testenv"
)

// simClock is the mappings' retry clock in a test: Sleep waits until the
// test moves the clock past its wake-up (advance), so minutes of retries
// take no real time and no test waits on a timer.
type simClock struct {
	mu      sync.Mutex
	now     time.Duration // since the clock started
	waiters []*simWaiter
}

type simWaiter struct {
	at   time.Duration
	wake chan struct{}
}

// Sleep is a Mapping.Sleep on the simulated clock.
func (c *simClock) Sleep(ctx context.Context, d time.Duration) bool {
	c.mu.Lock()
	w := &simWaiter{at: c.now + d, wake: make(chan struct{})}
	c.waiters = append(c.waiters, w)
	c.mu.Unlock()
	select {
	case <-w.wake:
		return true
	case <-ctx.Done():
		c.mu.Lock()
		c.waiters = slices.DeleteFunc(c.waiters, func(o *simWaiter) bool { return o == w })
		c.mu.Unlock()
		return false
	}
}

// advance moves the clock to the earliest wake-up and wakes whoever waits
// for it; it reports false when nobody waits.
func (c *simClock) advance() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.waiters) == 0 {
		return false
	}
	slices.SortFunc(c.waiters, func(a, b *simWaiter) int { return int(a.at - b.at) })
	c.now = max(c.now, c.waiters[0].at)
	for len(c.waiters) > 0 && c.waiters[0].at <= c.now {
		close(c.waiters[0].wake)
		c.waiters = c.waiters[1:]
	}
	return true
}

// elapsed is the simulated time since the clock started.
func (c *simClock) elapsed() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// foreignRecord is a record another producer wrote straight to a topic,
// as seed 003's kafka-console-producer example does: a seed-003 envelope
// with no StreamOps producer behind it, nothing of it in the store.
func foreignRecord(topic, key, value string, headers bool) *kgo.Record {
	r := &kgo.Record{Topic: topic, Key: []byte(key), Value: []byte(value)}
	if headers {
		r.Headers = []kgo.RecordHeader{{Key: bus.HeaderContentType, Value: []byte(bus.ContentTypeJSON)},
			{Key: bus.HeaderSchemaVersion, Value: []byte("1.0.0")}}
	}
	return r
}

// TestATenMinuteStoreOutageLosesNoRecord: the store goes away for ten
// (simulated) minutes while other producers write seed-003 events
// straight to both topics (franz-go clients, as seed 003's
// kafka-console-producer example, and that example's own test event).
// The real workflow- and task-processors behind the local MSK mappings
// fail every batch meanwhile; the mappings retry with their backoff for
// the whole outage and commit nothing. Once the store is back every
// record is processed as its event says (the workflows completed, the
// seed's wf-test failed with UNKNOWN_STEP, the tasks completed), nothing
// is dead-lettered, and both consumer groups commit up to the end of
// their topics.
func TestATenMinuteStoreOutageLosesNoRecord(t *testing.T) {
	const outageFor = 10 * time.Minute
	ctx := context.Background()
	brokers := testenv.Broker(t).ListenAddrs()
	producer, err := bus.New(bus.Config{Brokers: brokers})
	require.NoError(t, err)
	t.Cleanup(producer.Close)
	require.NoError(t, producer.EnsureTopics(ctx))

	// A short operation timeout makes each failed invocation quick.
	cfg, outage := storetest.ConfigureOutage(t, store.Config{OperationTimeout: 200 * time.Millisecond, ConnectTimeout: 2 * time.Second})
	st, err := store.Open(ctx, cfg)
	require.NoError(t, err)
	t.Cleanup(func() { _ = st.Close(context.Background()) })
	w := &wiring{cfg: Config{DataDir: t.TempDir(), Getenv: func(string) string { return "" }},
		store: st, bus: producer, log: quiet}
	workflowFn, err := w.workflowProcessor()
	require.NoError(t, err)
	taskFn, err := w.taskProcessor(ctx)
	require.NoError(t, err)

	outage.Begin()
	clock := &simClock{}
	var pollers []*poller
	pctx, stop := context.WithCancel(ctx)
	var running sync.WaitGroup
	t.Cleanup(func() { stop(); running.Wait() })
	for _, m := range []Mapping{
		{Function: FnWorkflowProcessor, Topic: events.TopicWorkflows, Handler: workflowFn, Timeout: Timeouts[FnWorkflowProcessor]},
		{Function: FnTaskProcessor, Topic: events.TopicTasks, Handler: taskFn, Timeout: Timeouts[FnTaskProcessor]},
	} {
		m.Sleep = clock.Sleep // the deployed settings, DefaultBatchRetry's backoff
		p, err := newPoller(m, bus.Config{Brokers: brokers}, "arn:aws:kafka:local:000000000000:cluster/test/x", quiet)
		require.NoError(t, err)
		pollers = append(pollers, p)
		running.Go(func() { p.run(pctx) })
	}

	// Other producers write while the store is away.
	topic, key, value := seedtest.PublishTestEvent(t)
	recs := []*kgo.Record{foreignRecord(topic, string(key), string(value), false)}
	now := time.Now().UTC().Format(time.RFC3339Nano)
	var workflowIDs, taskIDs []string
	for i := range 6 {
		wf, task := events.WorkflowIDPrefix+eventstest.NewUUID(), events.TaskIDPrefix+eventstest.NewUUID()
		workflowIDs, taskIDs = append(workflowIDs, wf), append(taskIDs, task)
		recs = append(recs,
			foreignRecord(events.TopicWorkflows, wf, fmt.Sprintf(`{"eventType":"workflow.created","eventId":"evt-%s","timestamp":%q,`+
				`"payload":{"workflowId":%q,"name":"Data Processing Pipeline","steps":["validate","transform","store"],"priority":"high","createdAt":%q},`+
				`"metadata":{"source":"kafka-console-producer","userId":null,"apiVersion":"1.0.0"}}`, eventstest.NewUUID(), now, wf, now), i%2 == 0),
			foreignRecord(events.TopicTasks, task, fmt.Sprintf(`{"eventType":"task.created","eventId":"evt-%s","timestamp":%q,`+
				`"payload":{"taskId":%q,"type":"email_notification","data":{"recipient":"user@example.com","subject":"Welcome to StreamOps","template":"welcome_email"},`+
				`"retryCount":0,"maxRetries":3,"createdAt":%q},"metadata":{"source":"kafka-console-producer","userId":null}}`, eventstest.NewUUID(), now, task, now), i%2 == 1))
	}
	foreign, err := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.RecordPartitioner(kgo.StickyKeyPartitioner(nil)))
	require.NoError(t, err)
	defer foreign.Close()
	require.NoError(t, foreign.ProduceSync(ctx, recs...).FirstErr())

	// Ten simulated minutes of outage: every wait before a retry is
	// served at once, in the order the clock says.
	deadline := time.Now().Add(2 * time.Minute)
	for clock.elapsed() < outageFor {
		require.True(t, time.Now().Before(deadline), "the mappings stopped retrying after %s of outage", clock.elapsed())
		if !clock.advance() {
			time.Sleep(time.Millisecond)
		}
	}
	failures := 0
	for _, p := range pollers {
		failures += p.Stats().Failures
		assert.Zero(t, p.Stats().Records, "%s: nothing succeeded during the outage", p.m.Function)
	}
	for group, topic := range consumedTopics {
		offs, err := committedOffsets(brokers, group, topic)
		require.NoError(t, err)
		assert.Empty(t, offs, "%s committed nothing during the outage", group)
	}
	require.Greater(t, failures, 2*len(pollers), "the batches kept failing and being retried")
	t.Logf("%s of outage: %d failed invocations, none committed", clock.elapsed().Round(time.Second), failures)

	outage.End()
	done := func() bool {
		for _, id := range workflowIDs {
			if wf, err := st.GetWorkflow(ctx, id); err != nil || wf.Status != status.WorkflowCompleted {
				return false
			}
		}
		for _, id := range taskIDs {
			if task, err := st.GetTask(ctx, id); err != nil || task.Status != status.TaskCompleted {
				return false
			}
		}
		wf, err := st.GetWorkflow(ctx, "wf-test")
		return err == nil && status.WorkflowIsFinal(wf.Status) && caughtUp(t, brokers)
	}
	for !done() {
		require.True(t, time.Now().Before(deadline.Add(time.Minute)), "not every record was processed after the outage")
		if !clock.advance() {
			time.Sleep(10 * time.Millisecond)
		}
	}

	seedWF, err := st.GetWorkflow(ctx, "wf-test")
	require.NoError(t, err)
	assert.Equal(t, status.WorkflowFailed, seedWF.Status, "the seed's test event names step1, no built-in step")
	if assert.NotNil(t, seedWF.Error) {
		assert.Equal(t, "UNKNOWN_STEP", seedWF.Error.Code)
	}
	dead, _, err := st.ListDeadLetters(ctx, store.DeadLetterQuery{})
	require.NoError(t, err)
	assert.Empty(t, dead, "a transient failure dead-letters nothing")
}

// consumedTopics is each processor's consumer group and its topic.
var consumedTopics = map[string]string{
	ConsumerGroup(FnWorkflowProcessor): events.TopicWorkflows,
	ConsumerGroup(FnTaskProcessor):     events.TopicTasks,
}

// caughtUp reports whether both processors' groups have committed every
// record of their topics, the events the processors emitted included.
func caughtUp(t *testing.T, brokers []string) bool {
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...))
	require.NoError(t, err)
	defer cl.Close()
	adm := kadm.NewClient(cl)
	for group, topic := range consumedTopics {
		endOffs, err := adm.ListEndOffsets(context.Background(), topic)
		require.NoError(t, err)
		got, err := committedOffsets(brokers, group, topic)
		require.NoError(t, err)
		caught := true
		endOffs.Each(func(o kadm.ListedOffset) {
			if o.Offset > 0 && got[o.Partition] != o.Offset {
				caught = false
			}
		})
		if !caught {
			return false
		}
	}
	return true
}
