package local

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamops/streamops/internal/backoff"
	"github.com/streamops/streamops/internal/bus"
	"github.com/streamops/streamops/internal/eventsource"
	"github.com/streamops/streamops/internal/stream"
)

// KafkaFunction is a Lambda handler behind an MSK event source mapping,
// such as stream.Processor.HandleKafkaEvent.
type KafkaFunction func(context.Context, events.KafkaEvent) error

// maxBatchBytes keeps a batch's event under Lambda's 6 MB payload limit,
// base64 and JSON framing included. The delivery settings (batch size,
// batching window, bisecting; no retry or age limit) are
// eventsource.Deployed(), internal/eventsource/mapping.json, the file
// infra deploys.
const maxBatchBytes = 4 << 20

// DefaultBatchRetry spaces the redeliveries of a failed batch: from half a
// second, doubling, capped at 30 s, with full jitter. Lambda does not
// publish its own schedule; this one retries a transient failure (the
// store or broker briefly away) quickly and a lasting one every half
// minute, for as long as it lasts.
var DefaultBatchRetry backoff.Policy = backoff.Exponential{Base: 500 * time.Millisecond, Factor: 2, Max: 30 * time.Second, Jitter: 1}

// ConsumerGroup is the consumer group of function's mapping, as deployed
// (infra/kafka.go), so offsets committed locally read the same in tools.
func ConsumerGroup(function string) string { return "streamops-" + function }

// Mapping is one MSK event source mapping: a function consuming a topic.
type Mapping struct {
	// Function names the function; its consumer group is
	// ConsumerGroup(Function).
	Function string
	// Topic is the topic it consumes.
	Topic string
	// Handler is the function's handler.
	Handler KafkaFunction
	// Timeout is the function's timeout, each invocation's deadline.
	Timeout time.Duration
	// Retry spaces redeliveries of a failed batch. Default
	// DefaultBatchRetry.
	Retry backoff.Policy
	// Settings are the delivery settings. Default eventsource.Deployed(), the
	// values the CDK stack deploys; tests change them.
	Settings *eventsource.Settings
	// Sleep waits d between a failed batch and its redelivery, reporting
	// false when ctx ended first. Default a timer; tests pass a simulated
	// clock, to drive a long outage in no time.
	Sleep func(ctx context.Context, d time.Duration) bool
}

// poller runs one Mapping as Lambda's event source mapping does: one
// consumer group polls the topic; each partition's records are delivered
// apart from the others' (a partition whose batch is being retried is
// paused, and only it), in batches of at most BatchSize records
// (eventsource.Settings) that become the exact events.KafkaEvent Lambda
// delivers (stream.ToKafkaEvent), JSON round-tripped so an encoding slip
// shows. A batch's offsets are committed once the function returned nil
// for it, never before: a failed batch is retried after a backoff, split
// in two first when BisectBatchOnFunctionError, until it succeeds, however
// long that takes and however old its records are, as the deployed
// mapping (no retry or record-age limit) does. Poison records are the
// processors' to dead-letter; what fails a batch is a dependency that is
// down, and its records wait for it.
type poller struct {
	m         Mapping
	s         eventsource.Settings
	cl        *kgo.Client
	bootstrap string
	arn       string
	log       *slog.Logger
	sleep     func(context.Context, time.Duration) bool

	workers sync.WaitGroup
	mu      sync.Mutex
	stats   MappingStats
	running map[int32]*partitionRun // the partitions being delivered
}

// partitionRun is one partition's delivery under way.
type partitionRun struct {
	stop context.CancelFunc // ends its retrying (revoked, or stopping)
	done chan struct{}
}

// MappingStats counts what a mapping did since start.
type MappingStats struct {
	// Batches is how many batches the function completed; Records the
	// records in them.
	Batches, Records int
	// Failures is how many invocations returned an error.
	Failures int
}

// newPoller builds the consumer of m on the cluster conn reaches (its
// brokers, TLS and SASL). It does not poll yet.
func newPoller(m Mapping, conn bus.Config, clusterARN string, log *slog.Logger) (*poller, error) {
	if m.Retry == nil {
		m.Retry = DefaultBatchRetry
	}
	if m.Sleep == nil {
		m.Sleep = sleepCtx
	}
	settings := eventsource.Deployed()
	if m.Settings != nil {
		settings = *m.Settings
	}
	if err := settings.Validate(); err != nil {
		return nil, fmt.Errorf("local: %s mapping: %w", m.Function, err)
	}
	p := &poller{
		m: m, s: settings, bootstrap: strings.Join(conn.Brokers, ","), arn: clusterARN,
		log:   log.With("function", m.Function, "topic", m.Topic, "consumerGroup", ConsumerGroup(m.Function)),
		sleep: m.Sleep, running: map[int32]*partitionRun{},
	}
	cl, err := kgo.NewClient(append(conn.ConnectOpts(),
		kgo.ClientID("streamops-local-"+m.Function),
		kgo.ConsumerGroup(ConsumerGroup(m.Function)),
		kgo.ConsumeTopics(m.Topic),
		// Offsets move only when a batch succeeded, as with Lambda.
		kgo.DisableAutoCommit(),
		// A partition taken away waits for its batch under way (which
		// then commits), and stops retrying: its new owner redelivers.
		kgo.OnPartitionsRevoked(p.release),
		kgo.OnPartitionsLost(p.release),
		// A new group starts at the beginning rather than at the end as
		// deployed (StartingPosition LATEST): locally, events produced
		// before the first start (kcat, a test) should run, not vanish.
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchMaxWait(max(settings.BatchingWindow(), 10*time.Millisecond)),
		// A stack killed without leaving its group is replaced quickly on
		// the next start.
		kgo.SessionTimeout(10*time.Second),
	)...)
	if err != nil {
		return nil, fmt.Errorf("local: %s consumer: %w", m.Function, err)
	}
	p.cl = cl
	return p, nil
}

// run polls until ctx ends. Batches under way when ctx ends still run to
// their end and, if they succeed, are committed; a batch waiting to be
// retried is left for the next start; then the consumer leaves its group.
func (p *poller) run(ctx context.Context) {
	defer p.cl.Close()
	defer p.workers.Wait()
	for {
		fetches := p.cl.PollRecords(ctx, p.s.BatchSize)
		if ctx.Err() != nil || fetches.IsClientClosed() {
			return
		}
		fetches.EachError(func(topic string, partition int32, err error) {
			if !errors.Is(err, context.Canceled) {
				p.log.WarnContext(ctx, "fetch failed; polling again", "partition", partition, "error", err)
			}
		})
		byPartition := map[int32][]*kgo.Record{}
		for _, r := range fetches.Records() {
			byPartition[r.Partition] = append(byPartition[r.Partition], r)
		}
		for partition, recs := range byPartition {
			p.start(ctx, partition, recs)
		}
	}
}

// start delivers one partition's records on a goroutine of its own, with
// the partition paused meanwhile, so its retries hold back no other
// partition and no later record of its own.
func (p *poller) start(ctx context.Context, partition int32, recs []*kgo.Record) {
	p.mu.Lock()
	prev := p.running[partition]
	p.mu.Unlock()
	if prev != nil { // not expected: the partition was paused
		<-prev.done
	}
	p.cl.PauseFetchPartitions(map[string][]int32{p.m.Topic: {partition}})
	wctx, stop := context.WithCancel(ctx)
	run := &partitionRun{stop: stop, done: make(chan struct{})}
	p.mu.Lock()
	p.running[partition] = run
	p.mu.Unlock()
	p.workers.Go(func() {
		defer close(run.done)
		defer stop()
		for _, batch := range splitBySize(recs, maxBatchBytes) {
			if !p.deliver(wctx, batch) {
				break // stopping or revoked: the rest is redelivered
			}
		}
		p.mu.Lock()
		if p.running[partition] == run {
			delete(p.running, partition)
		}
		p.mu.Unlock()
		p.cl.ResumeFetchPartitions(map[string][]int32{p.m.Topic: {partition}})
	})
}

// release ends the deliveries of partitions the group took away: a batch
// under way finishes (and commits), a batch waiting for its retry is left
// to the partition's next owner.
func (p *poller) release(_ context.Context, _ *kgo.Client, lost map[string][]int32) {
	var waits []chan struct{}
	p.mu.Lock()
	for _, partition := range lost[p.m.Topic] {
		if run := p.running[partition]; run != nil {
			run.stop()
			waits = append(waits, run.done)
		}
	}
	p.mu.Unlock()
	for _, done := range waits {
		<-done
	}
}

// attempt is a part of a batch still to be delivered: its records and how
// often they were retried.
type attempt struct {
	recs    []*kgo.Record
	retries int
}

// deliver delivers batch, in order, as Lambda's mapping does: a failed
// invocation is retried after a backoff, bisected first when so
// configured, until it succeeds; each part is committed once it
// succeeded, so what is committed is a prefix of batch that was
// processed. It reports false, committing nothing more, when ctx ended
// between attempts (stopping, or the partition revoked): the rest is
// delivered again from the last commit.
func (p *poller) deliver(ctx context.Context, batch []*kgo.Record) bool {
	queue := []attempt{{recs: batch}}
	for len(queue) > 0 {
		a := queue[0]
		err := p.invoke(ctx, a.recs)
		if err == nil {
			p.commit(ctx, a.recs)
			queue = queue[1:]
			continue
		}
		p.mu.Lock()
		p.stats.Failures++
		p.mu.Unlock()
		a.retries++
		delay := p.m.Retry.Delay(a.retries)
		bisect := p.s.BisectBatchOnFunctionError && len(a.recs) > 1
		p.log.ErrorContext(ctx, "batch failed; delivering it again, its offsets uncommitted", "records", len(a.recs),
			"from", describeBatch(a.recs), "retry", a.retries, "bisect", bisect,
			"retryIn", delay.Round(time.Millisecond).String(), "error", err)
		if !p.sleep(ctx, delay) {
			return false
		}
		if !bisect {
			queue[0] = a
			continue
		}
		half := len(a.recs) / 2
		queue = append([]attempt{
			{recs: a.recs[:half], retries: a.retries},
			{recs: a.recs[half:], retries: a.retries},
		}, queue[1:]...)
	}
	return true
}

// invoke makes the batch into Lambda's MSK event and calls the function.
func (p *poller) invoke(ctx context.Context, batch []*kgo.Record) error {
	var ev events.KafkaEvent
	if err := roundTrip(stream.ToKafkaEvent(batch, p.bootstrap, p.arn), &ev); err != nil {
		return fmt.Errorf("encode the MSK event: %w", err)
	}
	ictx, cancel := invocationContext(ctx, p.m.Function, p.m.Timeout)
	defer cancel()
	return protect(func() error { return p.m.Handler(ictx, ev) })
}

// commit commits the offsets of recs, which the function processed. A
// failed commit is logged, not retried: the records are then delivered
// again after a restart, which the processors absorb (at-least-once).
func (p *poller) commit(ctx context.Context, recs []*kgo.Record) {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if err := p.cl.CommitRecords(cctx, recs...); err != nil {
		p.log.ErrorContext(ctx, "commit failed; the batch will be delivered again after a restart", "error", err)
	}
	p.mu.Lock()
	p.stats.Batches++
	p.stats.Records += len(recs)
	p.mu.Unlock()
}

// Stats returns the mapping's counts so far.
func (p *poller) Stats() MappingStats {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stats
}

// splitBySize cuts records, in order, into batches whose values and keys
// stay under limit bytes (one record over it makes a batch of its own).
func splitBySize(recs []*kgo.Record, limit int) [][]*kgo.Record {
	var out [][]*kgo.Record
	start, size := 0, 0
	for i, r := range recs {
		n := len(r.Value) + len(r.Key)
		for _, h := range r.Headers {
			n += len(h.Key) + len(h.Value)
		}
		if i > start && size+n > limit {
			out = append(out, recs[start:i])
			start, size = i, 0
		}
		size += n
	}
	return append(out, recs[start:])
}

// describeBatch names a batch's first record as topic-partition@offset.
func describeBatch(batch []*kgo.Record) string {
	r := batch[0]
	return fmt.Sprintf("%s-%d@%d", r.Topic, r.Partition, r.Offset)
}

// sleepCtx waits d, reporting false when ctx ended first.
func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
