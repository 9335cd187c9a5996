package stream

import (
	"context"
	"fmt"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/store"
)

// Outcome is what a batch produced for one aggregate besides its own
// state: its lifecycle events, and the outcome of the webhook delivery
// that started it, once it ended. Domain states embed it, which makes them
// a State.
type Outcome struct {
	// Events are the lifecycle events to emit, in order.
	Events []events.Envelope
	// Webhook settles the webhook event that started the aggregate; nil
	// while it has not ended or when no webhook started it.
	Webhook *store.WebhookOutcome

	changed bool
}

// Change marks the aggregate changed by the batch: its state is written.
func (o *Outcome) Change() { o.changed = true }

// Changed reports whether the batch changed the aggregate.
func (o *Outcome) Changed() bool { return o.changed }

// CommitStore is what Commit writes besides the events it emits: the
// consumed events the history lacks and how webhook-started work ended;
// *store.Store implements it.
type CommitStore interface {
	InsertConsumedEvents(ctx context.Context, envs []events.Envelope) (store.InsertResult, error)
	SettleWebhookEvents(ctx context.Context, outcomes ...store.WebhookOutcome) (int, error)
}

// Commit writes what every processor's batch produces besides its own
// state, in an order that makes every prefix safe to repeat: the consumed
// events the batch set aside (Batch.Consumed) with one insert, published
// already, so the history has every event a processor acted on, before the
// events it caused; the events of outs and then more with one Emit; the
// batch's dead letters (so no state says dead-lettered without its dead
// letter); then the webhook outcomes with one bulk write. The domain
// writes its state (the checkpoints that make a redelivery a skip or a
// resume) after it. An error fails the batch; the redelivery writes
// duplicates of what was already written.
func (r Runtime) Commit(ctx context.Context, b *Batch, st CommitStore, outs []*Outcome, more ...events.Envelope) error {
	if consumed := b.takeConsumed(); len(consumed) > 0 {
		if _, err := st.InsertConsumedEvents(ctx, consumed); err != nil {
			return fmt.Errorf("%s: store consumed events: %w", r.domain, err)
		}
	}
	var evs []events.Envelope
	var hooks []store.WebhookOutcome
	for _, o := range outs {
		evs = append(evs, o.Events...)
		if o.Webhook != nil {
			hooks = append(hooks, *o.Webhook)
		}
	}
	evs = append(evs, more...)
	if len(evs) > 0 {
		if _, err := r.Emitter.Emit(ctx, evs...); err != nil {
			return fmt.Errorf("%s: %w", r.domain, err)
		}
	}
	if err := b.FlushDeadLetters(ctx); err != nil {
		return fmt.Errorf("%s: %w", r.domain, err)
	}
	if _, err := st.SettleWebhookEvents(ctx, hooks...); err != nil {
		return fmt.Errorf("%s: %w", r.domain, err)
	}
	return nil
}
