package stream

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/fault"
	"github.com/streamops/streamops/internal/store"
)

// Batch is one Lambda batch as a handler sees it: the accepted messages,
// and the dead letters collected so far.
type Batch struct {
	// Partitions hold the accepted messages, one entry per topic-partition,
	// each in offset order.
	Partitions []PartitionBatch

	proc         *Processor
	mu           sync.Mutex
	pending      []pendingDeadLetter
	deadLettered int
	consumed     []events.Envelope
}

type pendingDeadLetter struct {
	msg    Message
	reason Reason
	err    error
}

// Len is the number of accepted messages.
func (b *Batch) Len() int {
	n := 0
	for _, p := range b.Partitions {
		n += len(p.Messages)
	}
	return n
}

// DeadLetter sets m aside as a dead letter for reason. It is safe to call
// from concurrent partitions; nothing is written until FlushDeadLetters.
func (b *Batch) DeadLetter(m Message, reason Reason, err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.pending = append(b.pending, pendingDeadLetter{m, reason, err})
	b.deadLettered++
	m.deadLettered(reason)
	if m.progress != nil {
		m.progress.deadLettered = true
	}
}

// Consumed sets aside envelopes of the batch that the history may not hold
// (their aggregate had no projection, so StreamOps did not produce them),
// for Runtime.Commit to store. Safe to call from concurrent partitions.
func (b *Batch) Consumed(envs ...events.Envelope) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.consumed = append(b.consumed, envs...)
}

// takeConsumed is what Consumed set aside, and forgets it.
func (b *Batch) takeConsumed() []events.Envelope {
	b.mu.Lock()
	defer b.mu.Unlock()
	envs := b.consumed
	b.consumed = nil
	return envs
}

// FlushDeadLetters stores the dead letters set aside so far with one bulk
// insert, then publishes them to their dead-letter topics with one flush.
// The processor calls it after the handler; a handler calls it itself when
// its own state must not say "dead-lettered" before the dead letter is
// durable. Storing first means the admin API never misses a dead letter the
// topic has; a record stored twice (a retried batch) is a duplicate, a
// record published twice is an at-least-once copy the headers identify.
func (b *Batch) FlushDeadLetters(ctx context.Context) error {
	b.mu.Lock()
	pending := b.pending
	b.pending = nil
	b.mu.Unlock()
	if len(pending) == 0 {
		return nil
	}
	p := b.proc
	entries := make([]store.DeadLetterEntry, len(pending))
	recs := make([]*kgo.Record, len(pending))
	for i, d := range pending {
		entries[i] = p.entry(d)
		recs[i] = d.msg.DeadLetter(d.reason, d.err)
		if !p.owns(d.msg.Topic) {
			// A foreign topic's dead-letter topic may not exist; the record
			// goes to this processor's own (its origin is in the headers).
			recs[i].Topic = events.DLQTopic(p.topics[0])
		}
		p.cfg.Logger.WarnContext(d.msg.Context(ctx), "record dead-lettered", "record", d.msg.String(), "reason", d.reason,
			"eventType", d.msg.Envelope.EventType, "eventId", d.msg.Envelope.EventID, "error", d.err)
	}
	if _, err := p.cfg.DeadLetters.InsertDeadLetters(ctx, entries...); err != nil {
		b.requeue(pending)
		return fmt.Errorf("store dead letters: %w", err)
	}
	if err := p.cfg.Publisher.PublishRecords(ctx, recs); err != nil {
		b.requeue(pending)
		return fmt.Errorf("publish dead letters: %w", err)
	}
	return nil
}

// requeue puts dead letters back when a flush failed, so the processor's
// own flush tries them again and reports the failure.
func (b *Batch) requeue(pending []pendingDeadLetter) {
	b.mu.Lock()
	b.pending = append(pending, b.pending...)
	b.mu.Unlock()
}

func (p *Processor) entry(d pendingDeadLetter) store.DeadLetterEntry {
	m := d.msg
	e := store.DeadLetterEntry{
		Processor: p.cfg.Name, Topic: m.Topic, Partition: m.Partition, Offset: m.Offset,
		Key: string(m.Key), Value: m.Raw, RecordTimestamp: m.Timestamp,
		Reason: string(d.reason), ReceivedAt: p.cfg.Now(),
		EventType: string(m.Envelope.EventType), EventID: m.Envelope.EventID,
	}
	e.Error = fault.Text(d.err)
	if len(m.Envelope.Payload) > 0 {
		e.AggregateID = m.Envelope.AggregateID()
	}
	for _, h := range m.Record().Headers {
		e.Headers = append(e.Headers, store.DeadLetterHeader{Key: h.Key, Value: string(h.Value)})
	}
	return e
}

// ForEachPartition runs fn for every partition concurrently, each on its
// own goroutine so a partition's messages stay in order, and waits for all
// of them. P is whatever a handler makes of a partition (a
// PartitionBatch, or its decoded messages). Every partition runs to its
// end even when another fails, so the work done is kept; the errors are
// joined.
func ForEachPartition[P any](ctx context.Context, parts []P, fn func(ctx context.Context, p P) error) error {
	errs := make([]error, len(parts))
	var wg sync.WaitGroup
	for i, p := range parts {
		wg.Go(func() { errs[i] = fn(ctx, p) })
	}
	wg.Wait()
	return errors.Join(errs...)
}
