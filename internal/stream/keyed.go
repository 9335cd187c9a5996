package stream

import (
	"context"
	"errors"
	"slices"
	"sync"

	"github.com/streamops/streamops/events"
)

// Item is one accepted message with its decoded payload.
type Item[P any] struct {
	// Msg is the message as the batch delivered it.
	Msg Message
	// Payload is the message's payload, decoded.
	Payload P
}

// State is what a domain keeps of one aggregate during a batch.
type State interface {
	// Changed reports whether the batch changed the aggregate, so its
	// outcome must be written.
	Changed() bool
}

// Aggregates is the domain step of a processor whose messages each act on
// one aggregate (a workflow, a task) named by an id in the payload. It is
// all a processor implements; HandleByKey runs the batch around it.
type Aggregates[P any, S State] interface {
	// Key is the id of the aggregate a payload acts on.
	Key(p P) string
	// Load reads the stored aggregates of ids (sorted, unique) with one
	// query. An id it does not return is rebuilt with Rebuild, and its
	// messages' events are stored in the history (Batch.Consumed), which
	// holds the events StreamOps produced but not those of other
	// producers.
	Load(ctx context.Context, ids []string) (map[string]S, error)
	// Rebuild is the state of an aggregate that has no projection: another
	// producer published its event, or a producer crashed between storing
	// the aggregate's event and the aggregate itself. ctx is the message's
	// (Message.Context): its trace is the one the aggregate keeps.
	Rebuild(ctx context.Context, it Item[P]) S
	// Step applies one message to its aggregate's state; the core holds
	// the aggregate's lock. ctx is the message's (Message.Context), so its
	// logs and spans are in the message's trace. An error stops the message's partition (the
	// rest waits for the redelivery) and fails the batch, so return one
	// only for a transient failure; set aside a message that can never
	// succeed with Batch.DeadLetter and return nil.
	Step(ctx context.Context, b *Batch, st S, it Item[P]) error
	// Flush writes the outcome of the changed aggregates, in batch order,
	// with one bulk write per collection. It runs once per batch, also
	// when nothing changed and when a partition failed, so the progress
	// made is kept; an error fails the batch.
	Flush(ctx context.Context, b *Batch, changed []S) error
}

// Preparer is an Aggregates that completes the batch's states after they
// are loaded or rebuilt, before any step runs (one more query for what the
// states refer to, say).
type Preparer[S State] interface {
	Prepare(ctx context.Context, states map[string]S) error
}

// slot is one aggregate of a batch with its lock: the messages of one
// aggregate normally share a partition, but nothing guarantees it.
type slot[S State] struct {
	mu sync.Mutex
	st S
}

// HandleByKey runs one batch through an Aggregates: decodes every accepted
// message's payload as P (dead-lettering those that do not decode), loads
// the batch's aggregates with one query, runs Step on every message,
// partitions concurrently and each in offset order, then Flush once with
// every aggregate that changed. It is a Handler's HandleBatch.
func HandleByKey[P any, S State](ctx context.Context, b *Batch, a Aggregates[P, S]) error {
	parts := make([][]Item[P], 0, len(b.Partitions))
	var ids []string
	for _, p := range b.Partitions {
		var items []Item[P]
		for _, m := range p.Messages {
			payload, err := events.PayloadAs[P](m.Envelope)
			if err != nil {
				b.DeadLetter(m, ReasonProcessingFailed, err)
				continue
			}
			items = append(items, Item[P]{m, payload})
			ids = append(ids, a.Key(payload))
		}
		parts = append(parts, items)
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)

	slots, err := load(ctx, a, b, parts, ids)
	if err != nil {
		return err
	}
	runErr := ForEachPartition(ctx, parts, func(ctx context.Context, items []Item[P]) error {
		for _, it := range items {
			key := a.Key(it.Payload)
			sl := slots[key]
			it.Msg.begin(key)
			sl.mu.Lock()
			err := a.Step(it.Msg.Context(ctx), b, sl.st, it)
			sl.mu.Unlock()
			if err != nil {
				return err
			}
		}
		return nil
	})

	var changed []S
	seen := map[*slot[S]]bool{}
	for _, items := range parts {
		for _, it := range items {
			if sl := slots[a.Key(it.Payload)]; sl.st.Changed() && !seen[sl] {
				seen[sl] = true
				changed = append(changed, sl.st)
			}
		}
	}
	return errors.Join(runErr, a.Flush(ctx, b, changed))
}

// load is the state of every aggregate of the batch: stored, or rebuilt
// from its first message, then prepared. The messages of an aggregate
// that is not stored are set aside for the history (Batch.Consumed): no
// StreamOps producer publishes a *.created before storing its aggregate,
// so they may come from another producer, and the events StreamOps
// produced itself cost no write here.
func load[P any, S State](ctx context.Context, a Aggregates[P, S], b *Batch, parts [][]Item[P], ids []string) (map[string]*slot[S], error) {
	stored, err := a.Load(ctx, ids)
	if err != nil {
		return nil, err
	}
	slots := make(map[string]*slot[S], len(ids))
	states := make(map[string]S, len(ids))
	var consumed []events.Envelope
	for _, items := range parts {
		for _, it := range items {
			id := a.Key(it.Payload)
			st, ok := stored[id]
			if !ok {
				consumed = append(consumed, it.Msg.Envelope)
			}
			if slots[id] != nil {
				continue
			}
			if !ok {
				st = a.Rebuild(it.Msg.Context(ctx), it)
			}
			slots[id], states[id] = &slot[S]{st: st}, st
		}
	}
	b.Consumed(consumed...)
	if p, ok := a.(Preparer[S]); ok {
		if err := p.Prepare(ctx, states); err != nil {
			return nil, err
		}
	}
	return slots, nil
}

// Keyed is the Handler of a processor whose topic carries the event type
// that starts its aggregates' work (workflow.created, task.created), and
// perhaps more that drive it on (the task processor's task.failed, whose
// retry it runs); every other event type of that topic is a lifecycle event
// the processor itself emitted.
type Keyed[P any, S State] struct {
	// Type is the event type that starts an aggregate's work.
	Type events.Type
	// Also are further event types acted on; P must decode from each.
	Also []events.Type
	// Aggregates is the domain step.
	Aggregates Aggregates[P, S]
}

// Accepts is Type and Also.
func (k Keyed[P, S]) Accepts() []events.Type { return append([]events.Type{k.Type}, k.Also...) }

// HandleBatch runs the batch through HandleByKey.
func (k Keyed[P, S]) HandleBatch(ctx context.Context, b *Batch) error {
	return HandleByKey(ctx, b, k.Aggregates)
}

// LoadEach is an Aggregates.Load: it reads the stored aggregates of ids
// with get (one query) and makes each a state with wrap.
func LoadEach[T any, S State](ctx context.Context, ids []string,
	get func(context.Context, []string) (map[string]T, error), wrap func(T) S) (map[string]S, error) {
	stored, err := get(ctx, ids)
	if err != nil {
		return nil, err
	}
	states := make(map[string]S, len(stored))
	for id, v := range stored {
		states[id] = wrap(v)
	}
	return states, nil
}

// Settings is a domain's configuration: it fills in its own defaults and
// reports its first missing or bad field.
type Settings interface {
	SetDefaults()
	Validate() error
}

// NewKeyed returns the Keyed handler of t around the domain step that
// build makes of cfg, once cfg has its defaults and is valid: every
// processor's constructor.
func NewKeyed[P any, S State, C any, PC interface {
	*C
	Settings
}](t events.Type, cfg C, build func(C) Aggregates[P, S]) (*Keyed[P, S], error) {
	PC(&cfg).SetDefaults()
	if err := PC(&cfg).Validate(); err != nil {
		return nil, err
	}
	return &Keyed[P, S]{Type: t, Aggregates: build(cfg)}, nil
}
