package bus

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/tracing"
)

// Record headers of seed 003 ("Message Format").
const (
	HeaderContentType   = "content-type"
	HeaderSchemaVersion = "schema-version"
	ContentTypeJSON     = "application/json"
)

var (
	contentTypeJSON = []byte(ContentTypeJSON)
	// currentHeaders is shared by every record of the current schema
	// version, so publishing does not allocate headers per record. The
	// full slice expression makes any append by a reader copy first.
	currentHeaders = []kgo.RecordHeader{
		{Key: HeaderContentType, Value: contentTypeJSON},
		{Key: HeaderSchemaVersion, Value: []byte(events.SchemaVersion)},
	}[:2:2]
)

// Client publishes envelopes and records to Kafka and administers the
// StreamOps topics. It is safe for concurrent use; build one per process
// (Lambda init) and Close it on shutdown.
type Client struct {
	cfg Config
	cl  *kgo.Client
	adm *kadm.Client
}

// New validates cfg (after filling defaults) and builds a Client. It does not
// dial: brokers are contacted on first use, so a Lambda cold start stays fast.
// The producer is idempotent with acks=all; nothing here can turn that off.
func New(cfg Config) (*Client, error) {
	cfg.setDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	opts := append(cfg.ConnectOpts(),
		kgo.ClientID(cfg.ClientID),
		// acks=all is kgo's default and idempotence requires it; say it
		// anyway so no later option can quietly weaken durability.
		kgo.RequiredAcks(kgo.AllISRAcks()),
		// murmur2 on the key, as the Java client and kafkajs do, so every
		// producer agrees on the partition of a workflowId or taskId.
		kgo.RecordPartitioner(kgo.StickyKeyPartitioner(nil)),
		kgo.ProducerLinger(cfg.Linger),
		kgo.ProducerBatchCompression(cfg.Compression.Codec()),
		kgo.MaxBufferedRecords(cfg.MaxBufferedRecords),
		kgo.MaxBufferedBytes(cfg.MaxBufferedBytes),
		// The brokers' limit rather than kgo's smaller default (1000012),
		// so what RecordSize admits is what the producer sends.
		kgo.ProducerBatchMaxBytes(int32(cfg.MaxMessageBytes)),
		kgo.ProduceRequestTimeout(cfg.ProduceTimeout),
		// No kgo.RecordDeliveryTimeout: Publish bounds itself with a
		// context deadline instead, which also covers the wait for the
		// broker's answer.
	)
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidConfig, err)
	}
	return &Client{cfg: cfg, cl: cl, adm: kadm.NewClient(cl)}, nil
}

// WithLogger is c writing its "Event published" lines to log instead: the
// same producer and connections (one process serving several functions
// gives each its own lines), so closing either closes both.
func (c *Client) WithLogger(log *slog.Logger) *Client {
	cp := *c
	cp.cfg.Logger = log
	return &cp
}

// Close flushes nothing and releases connections; records still buffered
// fail with kgo.ErrClientClosed. Publish waits for its own records, so after
// every Publish has returned there is nothing left to lose.
func (c *Client) Close() { c.cl.Close() }

// NewRecord turns an envelope into the seed-003 Kafka record: topic (the
// event type's topic unless topic is non-empty), key = AggregateID (the
// workflowId or taskId), value = envelope JSON, and the content-type and
// schema-version headers. Its timestamp is left to the produce: every
// record is stamped with the time it is produced (see produceWait.produce);
// the event's own time is the envelope's timestamp. It fails with
// ErrUnroutable when there is no topic or no key.
func NewRecord(env events.Envelope, topic string) (*kgo.Record, error) {
	r := new(kgo.Record)
	if err := fill(r, &env, topic, nil); err != nil {
		return nil, err
	}
	return r, nil
}

// fill makes r the record of env (see NewRecord), with the trace context
// headers rt gives it when rt is not nil (Publish).
func fill(r *kgo.Record, env *events.Envelope, topic string, rt *recordTrace) error {
	if topic == "" {
		topic = env.EventType.Topic()
	}
	if topic == "" {
		return fmt.Errorf("%w: %s %s has no Kafka topic", ErrUnroutable, env.EventType, env.EventID)
	}
	value, key, err := encode(env)
	if err != nil {
		return errEncode(env, err)
	}
	if len(key) == 0 {
		return fmt.Errorf("%w: %s %s has no workflowId or taskId to key it by", ErrUnroutable, env.EventType, env.EventID)
	}
	r.Topic = topic
	r.Key = key
	r.Value = value
	if rt != nil {
		r.Headers = rt.headers(env)
	} else {
		r.Headers = recordHeaders(env.SchemaVersion)
	}
	return nil
}

// recordHeaders returns the headers for an envelope of schema version v.
func recordHeaders(v string) []kgo.RecordHeader {
	if v == "" || v == events.SchemaVersion {
		return currentHeaders
	}
	return []kgo.RecordHeader{
		{Key: HeaderContentType, Value: contentTypeJSON},
		{Key: HeaderSchemaVersion, Value: []byte(v)},
	}
}

// Publish produces every envelope to its event type's topic and waits, once,
// for all of them: records go to kgo as they are encoded and share batches
// and requests, not a round trip each. It returns nil when every event was
// acknowledged (acks=all), otherwise a *PublishError naming the events that
// were not; the others were. Events are produced in slice order, so events
// of one workflow or task keep their order on its partition. The call is
// bounded by Config.ProduceTimeout.
//
// Each call is one PRODUCER span ("send"), and every record carries W3C
// traceparent (and tracestate) headers naming its event's trace: the
// call's span for an event of the call's trace or of none, else the
// event's metadata.traceId continued as tracing.Resume does, so a batch of
// unrelated events keeps each one's trace.
func (c *Client) Publish(ctx context.Context, envs ...events.Envelope) error {
	return c.publish(ctx, "", envs)
}

// PublishTo is Publish with every envelope sent to topic instead of its
// type's topic: replays and tests target other topics.
func (c *Client) PublishTo(ctx context.Context, topic string, envs ...events.Envelope) error {
	if topic == "" {
		return fmt.Errorf("%w: PublishTo needs a topic", ErrUnroutable)
	}
	return c.publish(ctx, topic, envs)
}

func (c *Client) publish(ctx context.Context, topic string, envs []events.Envelope) (err error) {
	if len(envs) == 0 {
		return nil
	}
	ctx, span := startSend(ctx, topic, envs)
	defer func() { tracing.End(span, err) }()
	rt := newRecordTrace(ctx)
	ctx, cancel := context.WithTimeout(ctx, c.cfg.ProduceTimeout)
	defer cancel()

	// Records go to kgo in input order as soon as they are encoded, so
	// the first batches are on the wire while the rest are being encoded.
	recs := make([]kgo.Record, len(envs))
	w := newProduceWait(ctx, len(envs))
	encodeInOrder(envs, recs, topic, rt, func(i int, err error) {
		if err != nil {
			recs[i].Topic = cmp.Or(topic, envs[i].EventType.Topic())
			w.settle(i, err)
			return
		}
		w.produce(c.cl, &recs[i], i)
	})
	c.flush(ctx)
	failed := w.wait(ctx, func(i int) *kgo.Record { return &recs[i] })
	c.logPublished(ctx, envs, recs, failed)
	if len(failed) == 0 {
		return nil
	}
	for j := range failed {
		failed[j].EventID = envs[failed[j].index].EventID
		if failed[j].Record.Value == nil {
			failed[j].Record = nil // never became a record
		}
	}
	return newPublishError(failed, len(envs))
}

// PublishRecords produces prepared records (dead letters, replays of raw
// records) with one flush, as Publish does. Records are produced as given;
// their Context is set to the call's context.
func (c *Client) PublishRecords(ctx context.Context, recs []*kgo.Record) error {
	if len(recs) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, c.cfg.ProduceTimeout)
	defer cancel()
	w := newProduceWait(ctx, len(recs))
	for i, r := range recs {
		w.produce(c.cl, r, i)
	}
	c.flush(ctx)
	if failed := w.wait(ctx, func(i int) *kgo.Record { return recs[i] }); len(failed) > 0 {
		return newPublishError(failed, len(recs))
	}
	return nil
}

// flush sends the call's lingering batches now rather than after Linger.
// kgo's Flush also waits for everything buffered, other calls' records
// included, so it runs beside our own wait and ends with the call's context.
func (c *Client) flush(ctx context.Context) {
	if c.cfg.Linger > 0 {
		go func() { _ = c.cl.Flush(ctx) }()
	}
}

// produceWait collects the outcomes of one Publish or PublishRecords call.
//
// The wait is ours rather than ProduceSync's because kgo, idempotent, will
// not fail a record it has already sent until the broker answers; with the
// broker gone that is unbounded. Records still unacknowledged at the
// deadline are reported with ErrUnacknowledged and left to kgo, which may
// yet deliver them: a caller that publishes them again can cause a
// duplicate, which consumers absorb by eventId.
type produceWait struct {
	ctx       context.Context
	ctxs      []recordCtx // one per record, allocated together
	promiseFn func(*kgo.Record, error)

	mu        sync.Mutex
	errs      []error
	settled   []bool
	left      int
	abandoned bool // the call returned; late promises change nothing
	done      chan struct{}
}

// recordCtx is the call's context carrying a record's input position, so
// one promise serves every record without a closure per record.
type recordCtx struct {
	context.Context
	i int
}

func newProduceWait(ctx context.Context, n int) *produceWait {
	w := &produceWait{
		ctx: ctx, ctxs: make([]recordCtx, n),
		errs: make([]error, n), settled: make([]bool, n), left: n, done: make(chan struct{}),
	}
	w.promiseFn = w.promise
	return w
}

// produce hands r, the i-th record of the call, to kgo, stamped with the
// time it is produced. This is the one place every record StreamOps
// produces passes (Publish, PublishTo, PublishRecords: emits, the
// sweeper's republishes and redrives, replays, dead letters and their
// requeues, the relay's Kafka deliveries). The record timestamp is what
// the event source mapping's maximum record age, retention and
// time-based offset lookups measure; the event's own time stays in the
// envelope, so an event replayed or republished long after it happened
// is not skipped as old.
func (w *produceWait) produce(cl *kgo.Client, r *kgo.Record, i int) {
	r.Timestamp = time.Now()
	w.ctxs[i] = recordCtx{w.ctx, i}
	r.Context = &w.ctxs[i]
	cl.Produce(w.ctx, r, w.promiseFn)
}

func (w *produceWait) promise(r *kgo.Record, err error) {
	w.settle(r.Context.(*recordCtx).i, err)
}

// settle records the outcome of record i.
func (w *produceWait) settle(i int, err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.abandoned || w.settled[i] {
		return
	}
	w.errs[i], w.settled[i] = err, true
	if w.left--; w.left == 0 {
		close(w.done)
	}
}

// failure is a FailedEvent with the input position it belongs to.
type failure struct {
	FailedEvent
	index int
}

// wait blocks until every record settled or ctx ends, then returns the
// failures in input order; record(i) is the i-th record.
func (w *produceWait) wait(ctx context.Context, record func(int) *kgo.Record) []failure {
	select {
	case <-w.done:
	case <-ctx.Done():
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.abandoned = true
	var failed []failure
	for i, err := range w.errs {
		if !w.settled[i] {
			err = fmt.Errorf("%w: %w", ErrUnacknowledged, ctx.Err())
		}
		if err != nil {
			r := record(i)
			failed = append(failed, failure{FailedEvent{Topic: r.Topic, Key: string(r.Key), Record: r, Err: err}, i})
		}
	}
	return failed
}

func newPublishError(failed []failure, total int) *PublishError {
	pe := &PublishError{Failed: make([]FailedEvent, len(failed)), Total: total}
	for i, f := range failed {
		pe.Failed[i] = f.FailedEvent
	}
	return pe
}
