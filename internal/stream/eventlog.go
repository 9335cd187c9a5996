package stream

import (
	"context"
	"log/slog"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/eventlog"
)

// progress is what a message's "Event processed" line says: where it was
// read, its event, when the processor began on it (its Step; before any,
// the batch's start), the aggregate it acted on, and whether it was
// dead-lettered. A Processor tracks every message it accepts or
// dead-letters; the lifecycle events it skips are not its to process and
// get no line.
type progress struct {
	span         trace.Span
	topic        string
	eventType    events.Type
	eventID      string
	key          []byte
	aggregateID  string // set by begin; else the record key
	start        time.Time
	deadLettered bool
}

// batchProgress is the progress of one batch's tracked messages, allocated
// at once: a message points into it.
type batchProgress struct {
	start time.Time
	all   []progress
}

func newProgress(parts []PartitionBatch, start time.Time) *batchProgress {
	n := 0
	for _, p := range parts {
		n += len(p.Messages)
	}
	return &batchProgress{start: start, all: make([]progress, 0, n)}
}

// track starts m's progress.
func (bp *batchProgress) track(m *Message) {
	bp.all = append(bp.all, progress{span: m.span, topic: m.Topic, eventType: m.Envelope.EventType,
		eventID: m.Envelope.EventID, key: m.Key, start: bp.start})
	m.progress = &bp.all[len(bp.all)-1]
}

// begin marks the start of the processor's work on m, on the aggregate
// aggregateID (HandleByKey, before its Step).
func (m Message) begin(aggregateID string) {
	if m.progress != nil {
		m.progress.start, m.progress.aggregateID = time.Now(), aggregateID
	}
}

// logProcessed writes the "Event processed" line of every tracked message
// once the batch's outcome is known: its processingTime runs from when the
// processor began on it to now, when its outcome is durable (or the batch
// failed), and success says it was acted on and its batch committed; a
// dead-lettered message, or any of a batch that failed and is delivered
// again, is success=false. Each line is in its record's trace.
func (p *Processor) logProcessed(ctx context.Context, bp *batchProgress, committed bool) {
	log := p.cfg.Logger
	if len(bp.all) == 0 || !log.Enabled(ctx, slog.LevelInfo) {
		return
	}
	now := time.Now()
	for i := range bp.all {
		pr := &bp.all[i]
		success := committed && !pr.deadLettered
		if success && !p.cfg.EventLog.Keep(pr.eventID) {
			continue
		}
		lctx := ctx
		if pr.span != nil {
			lctx = trace.ContextWithSpan(ctx, pr.span)
		}
		id := pr.aggregateID
		if id == "" {
			id = string(pr.key)
		}
		eventlog.Processed(lctx, log, p.cfg.EventLog, pr.topic, pr.eventType, pr.eventID, id, now.Sub(pr.start), success)
	}
}
