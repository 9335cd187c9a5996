package stream

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strings"
	"time"

	lambdaevents "github.com/aws/aws-lambda-go/events"
	"github.com/twmb/franz-go/pkg/kgo"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/eventlog"
	"github.com/streamops/streamops/internal/metrics"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/tracing"
	"github.com/streamops/streamops/internal/vault"
)

// Handler is the domain side of a processor.
type Handler interface {
	// Accepts lists the event types the handler acts on. Other event types
	// of the same topic are skipped; types that belong to another topic
	// are dead-lettered as misrouted.
	Accepts() []events.Type
	// HandleBatch acts on the accepted messages of one batch. An error
	// fails the batch so Lambda delivers it again: return one only for a
	// transient failure, and dead-letter records that can never succeed
	// with Batch.DeadLetter.
	HandleBatch(ctx context.Context, b *Batch) error
}

// DeadLetterStore stores dead letters; *store.Store implements it.
type DeadLetterStore interface {
	InsertDeadLetters(ctx context.Context, dls ...store.DeadLetterEntry) (store.InsertResult, error)
}

// RecordPublisher publishes prepared records with one flush; *bus.Client
// implements it.
type RecordPublisher interface {
	PublishRecords(ctx context.Context, recs []*kgo.Record) error
}

// Config wires a Processor.
type Config struct {
	// Name is the function's name ("workflow-processor"), recorded on its
	// dead letters and logs. Required.
	Name string
	// Handler acts on the accepted messages. Required.
	Handler Handler
	// DeadLetters stores dead letters. Required.
	DeadLetters DeadLetterStore
	// Publisher publishes dead letters to <topic>.dlq. Required.
	Publisher RecordPublisher
	// Logger receives structured logs. Default slog.Default().
	Logger *slog.Logger
	// Metrics receives Records, Accepted, Skipped, DeadLettered and
	// BatchLatency per batch. Default: none.
	Metrics *metrics.Recorder
	// EventLog is the share of events whose "Event processed" line
	// (package eventlog) Logger receives (STREAMOPS_EVENT_LOG_SAMPLE); a
	// line that says success=false is always written. Default: every
	// event's.
	EventLog eventlog.Sampling
	// Now is the clock of dead letters' received_at. Default time.Now.
	Now func() time.Time
	// Personal replaces the personal data of what another producer
	// published (vault.Vault) before the batch stores, publishes or
	// dead-letters any of it; StreamOps' own records hold references
	// already and pass unchanged. Nil: records are used as they came.
	Personal Protector
}

// Protector replaces the personal data of a document by references
// (vault.Vault).
type Protector interface {
	Protect(ctx context.Context, in vault.Input) ([]byte, error)
}

func (c *Config) setDefaults() {
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.Now == nil {
		c.Now = time.Now
	}
}

// Validate reports the first missing field.
func (c Config) Validate() error {
	switch {
	case c.Name == "":
		return errors.New("stream: Config.Name is required")
	case c.Handler == nil:
		return errors.New("stream: Config.Handler is required")
	case c.DeadLetters == nil:
		return errors.New("stream: Config.DeadLetters is required")
	case c.Publisher == nil:
		return errors.New("stream: Config.Publisher is required")
	case len(c.Handler.Accepts()) == 0:
		return errors.New("stream: the handler accepts no event type")
	}
	return nil
}

// Processor turns MSK batches into handler calls. Safe for concurrent use.
type Processor struct {
	cfg    Config
	accept []events.Type
	topics []string // the topics of the accepted types
}

// New returns a Processor.
func New(cfg Config) (*Processor, error) {
	cfg.setDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	proc := &Processor{cfg: cfg, accept: cfg.Handler.Accepts()}
	for _, t := range proc.accept {
		if !slices.Contains(proc.topics, t.Topic()) {
			proc.topics = append(proc.topics, t.Topic())
		}
	}
	return proc, nil
}

// storable validates an envelope against the catalog as a consumer reads
// it (events.Consumed: unknown fields, foreign ids and any 1.x version are
// fine) and checks that the store can keep it on every engine (no key with
// a NUL byte, every number exactly): a record that fails either fails
// again on every redelivery, so it is poison, dead-lettered before any
// write of the batch could fail on it and hold its partition.
func storable(raw []byte) error {
	doc, err := events.Consumed.ValidateValue(raw)
	if err != nil {
		return err
	}
	return store.CheckDecoded(len(raw), doc)
}

// HandleKafkaEvent is the Lambda handler of an MSK trigger. It returns an
// error, making Lambda deliver the batch again, only when the handler or
// the dead-letter path failed transiently.
func (p *Processor) HandleKafkaEvent(ctx context.Context, ev lambdaevents.KafkaEvent) error {
	start := time.Now()
	ctx, span := p.startBatch(ctx)
	// The events the batch emits name the span of the record they come
	// from (startRecord registers it), not one derived from their ids.
	ctx = tracing.WithParents(ctx)
	b := &Batch{proc: p}
	var records, skipped int
	var spans []trace.Span
	parts := DecodeKafkaEvent(ev, WithValidator(storable))
	if err := p.protect(ctx, parts); err != nil {
		span.End()
		return fmt.Errorf("stream: protect the personal data of the batch: %w", err)
	}
	progress := newProgress(parts, start)
	for _, part := range parts {
		accepted := PartitionBatch{Topic: part.Topic, Partition: part.Partition}
		for _, m := range part.Messages {
			records++
			startRecord(ctx, &m)
			spans = append(spans, m.span)
			switch verdict, reason, err := p.sort(m); verdict {
			case accept:
				progress.track(&m)
				accepted.Messages = append(accepted.Messages, m)
			case skip:
				skipped++
			case deadLetter:
				progress.track(&m)
				b.DeadLetter(m, reason, err)
			}
		}
		if len(accepted.Messages) > 0 {
			b.Partitions = append(b.Partitions, accepted)
		}
	}

	var handlerErr error
	if len(b.Partitions) > 0 {
		handlerErr = p.cfg.Handler.HandleBatch(ctx, b)
	}
	dlErr := b.FlushDeadLetters(ctx)
	err := errors.Join(handlerErr, dlErr)
	for _, s := range spans {
		s.End()
	}
	p.logProcessed(ctx, progress, err == nil)
	if span.IsRecording() {
		span.SetAttributes(semconv.MessagingBatchMessageCount(records))
	}
	defer tracing.End(span, err)

	log := p.cfg.Logger.With("records", records, "accepted", b.Len(), "skipped", skipped,
		"deadLettered", b.deadLettered, "latencyMs", time.Since(start).Milliseconds())
	if err != nil {
		log.ErrorContext(ctx, "batch failed; Lambda delivers it again", "error", err)
	} else {
		log.InfoContext(ctx, "batch processed")
	}
	p.cfg.Metrics.Record(
		metrics.Metric{Name: "Records", Unit: metrics.Count, Value: float64(records)},
		metrics.Metric{Name: "Accepted", Unit: metrics.Count, Value: float64(b.Len())},
		metrics.Metric{Name: "Skipped", Unit: metrics.Count, Value: float64(skipped)},
		metrics.Metric{Name: "DeadLettered", Unit: metrics.Count, Value: float64(b.deadLettered)},
		metrics.Metric{Name: "BatchLatency", Unit: metrics.Milliseconds, Value: float64(time.Since(start).Microseconds()) / 1000},
	)
	if err != nil {
		return fmt.Errorf("%s: %w", p.cfg.Name, err)
	}
	return nil
}

type verdict int

const (
	accept verdict = iota
	skip
	deadLetter
)

// sort decides what happens to one decoded message.
func (p *Processor) sort(m Message) (verdict, Reason, error) {
	if m.Err != nil {
		reason := ReasonUndecodable
		if de, ok := errors.AsType[*DecodeError](m.Err); ok {
			reason = de.Reason
		}
		return deadLetter, reason, m.Err
	}
	if !p.owns(m.Topic) {
		return deadLetter, ReasonProcessingFailed,
			fmt.Errorf("%s: a record of topic %s, which it does not consume (%s)", p.cfg.Name, m.Topic, strings.Join(p.topics, ", "))
	}
	t := m.Envelope.EventType
	if slices.Contains(p.accept, t) {
		return accept, "", nil
	}
	if t.Topic() == strings.TrimSuffix(m.Topic, events.DLQSuffix) {
		return skip, "", nil // a lifecycle event of this topic: someone else's
	}
	return deadLetter, ReasonProcessingFailed,
		fmt.Errorf("%s: a %s event does not belong on topic %s", p.cfg.Name, t, m.Topic)
}

// owns reports whether topic (or its dead-letter topic, when a dead letter
// is requeued) is one the processor consumes.
func (p *Processor) owns(topic string) bool {
	return slices.Contains(p.topics, strings.TrimSuffix(topic, events.DLQSuffix))
}

// ProcessorID is the processorId processors stamp on the events they
// emit: the first of ids that is not empty (STREAMOPS_PROCESSOR_ID, then
// the Lambda's log stream, one per execution environment), else the host
// name.
func ProcessorID(ids ...string) string {
	for _, id := range ids {
		if id != "" {
			return id
		}
	}
	if h, err := os.Hostname(); err == nil && h != "" {
		return h
	}
	return "event-processor"
}
