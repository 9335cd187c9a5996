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
)

// KafkaFunction is a Lambda handler behind an MSK event source mapping,
// such as stream.Processor.HandleKafkaEvent.
type KafkaFunction func(context.Context, events.KafkaEvent) error

// Event source mapping settings, as infra/kafka.go deploys them.
const (
	// BatchSize is the most records one invocation gets (the MSK default).
	BatchSize = 100
	// BatchingWindow is how long a poll waits for records to arrive.
	BatchingWindow = time.Second
	// maxBatchBytes keeps a batch's event under Lambda's 6 MB payload
	// limit, base64 and JSON framing included.
	maxBatchBytes = 4 << 20
)

// DefaultBatchRetry spaces the redeliveries of a failed batch: from half a
// second, doubling, capped at 30 s, with full jitter. Lambda does not
// publish its own schedule; this one retries a transient failure (the
// store or broker briefly away) quickly and a lasting one rarely.
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
}

// poller runs one Mapping as Lambda's event source mapping does: one
// consumer group polls the topic; each batch of at most BatchSize records
// becomes the exact events.KafkaEvent Lambda delivers (bus.ToKafkaEvent),
// JSON round-tripped so an encoding slip shows, and is handed to the
// function; its offsets are committed only once the function returned nil.
// A failed batch is delivered again from its first record, after a backoff,
// until it succeeds or the stack stops, so nothing is skipped: unlike on
// AWS there is no retry limit and no on-failure destination (poison
// records are the processors' to dead-letter).
type poller struct {
	m         Mapping
	cl        *kgo.Client
	bootstrap string
	arn       string
	log       *slog.Logger
	sleep     func(context.Context, time.Duration) bool

	mu    sync.Mutex
	stats MappingStats
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
	cl, err := kgo.NewClient(append(conn.ConnectOpts(),
		kgo.ClientID("streamops-local-"+m.Function),
		kgo.ConsumerGroup(ConsumerGroup(m.Function)),
		kgo.ConsumeTopics(m.Topic),
		// Offsets move only when a batch succeeded, as with Lambda.
		kgo.DisableAutoCommit(),
		// A rebalance waits for the batch in hand, so a partition is never
		// revoked between its invocation and its commit.
		kgo.BlockRebalanceOnPoll(),
		// A new group starts at the beginning rather than at the end as
		// deployed (StartingPosition LATEST): locally, events produced
		// before the first start (kcat, a test) should run, not vanish.
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchMaxWait(BatchingWindow),
		// A stack killed without leaving its group is replaced quickly on
		// the next start.
		kgo.SessionTimeout(10*time.Second),
	)...)
	if err != nil {
		return nil, fmt.Errorf("local: %s consumer: %w", m.Function, err)
	}
	return &poller{
		m: m, cl: cl, bootstrap: strings.Join(conn.Brokers, ","), arn: clusterARN,
		log:   log.With("function", m.Function, "topic", m.Topic, "consumerGroup", ConsumerGroup(m.Function)),
		sleep: sleepCtx,
	}, nil
}

// run polls until ctx ends. A batch under way when ctx ends still runs to
// its end and, if it succeeds, is committed; then the consumer leaves its
// group.
func (p *poller) run(ctx context.Context) {
	defer p.cl.Close()
	for {
		fetches := p.cl.PollRecords(ctx, BatchSize)
		if ctx.Err() != nil || fetches.IsClientClosed() {
			p.cl.AllowRebalance()
			return
		}
		fetches.EachError(func(topic string, partition int32, err error) {
			if !errors.Is(err, context.Canceled) {
				p.log.WarnContext(ctx, "fetch failed; polling again", "partition", partition, "error", err)
			}
		})
		if recs := fetches.Records(); len(recs) > 0 {
			for _, batch := range splitBySize(recs, maxBatchBytes) {
				if !p.deliver(ctx, batch) {
					break // stopping: the rest is redelivered after the restart
				}
			}
		}
		p.cl.AllowRebalance()
	}
}

// deliver invokes the function with batch until it succeeds, then commits
// the batch. It gives up, committing nothing, only when ctx ends between
// attempts, and reports whether the batch was committed.
func (p *poller) deliver(ctx context.Context, batch []*kgo.Record) bool {
	for attempt := 1; ; attempt++ {
		err := p.invoke(ctx, batch)
		if err == nil {
			p.commit(ctx, batch)
			return true
		}
		p.mu.Lock()
		p.stats.Failures++
		p.mu.Unlock()
		delay := p.m.Retry.Delay(attempt)
		p.log.ErrorContext(ctx, "batch failed; delivering it again from its first record", "records", len(batch),
			"from", describeBatch(batch), "attempt", attempt, "retryIn", delay.Round(time.Millisecond).String(), "error", err)
		if !p.sleep(ctx, delay) {
			return false
		}
	}
}

// invoke makes the batch into Lambda's MSK event and calls the function.
func (p *poller) invoke(ctx context.Context, batch []*kgo.Record) error {
	var ev events.KafkaEvent
	if err := roundTrip(bus.ToKafkaEvent(batch, p.bootstrap, p.arn), &ev); err != nil {
		return fmt.Errorf("encode the MSK event: %w", err)
	}
	ictx, cancel := invocationContext(ctx, p.m.Function, p.m.Timeout)
	defer cancel()
	return protect(func() error { return p.m.Handler(ictx, ev) })
}

// commit commits the batch's offsets. A failed commit is logged, not
// retried: the batch is then delivered again after a restart, which the
// processors absorb (at-least-once).
func (p *poller) commit(ctx context.Context, batch []*kgo.Record) {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if err := p.cl.CommitRecords(cctx, batch...); err != nil {
		p.log.ErrorContext(ctx, "commit failed; the batch will be delivered again after a restart", "error", err)
	}
	p.mu.Lock()
	p.stats.Batches++
	p.stats.Records += len(batch)
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
