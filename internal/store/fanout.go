package store

import (
	"context"
	"fmt"

	"github.com/streamops/streamops/events"
)

// FanOut turns stored events into the outbox entries of the partners
// subscribed to them (internal/fanout implements it over the partner
// directory). The store cannot ask the partners itself: they live above
// it (outbox), and the store must not import them.
type FanOut interface {
	// Entries are the outbox entries envs create, each with an OutboxID
	// derived from the event and the partner (SubscriptionOutboxID), so
	// computing them again gives the same ids. None when nothing
	// subscribes. An error means they cannot be known now (the partners
	// cannot be read): the caller retries.
	Entries(ctx context.Context, envs []events.Envelope) ([]OutboxEntry, error)
}

// fanOutBox holds the FanOut a store was given, so it can be swapped
// atomically.
type fanOutBox struct{ f FanOut }

// SetFanOut makes every event stored from now on (InsertEvent and every
// InsertEvents*) create the outbox entries f gives for it; nil stops it.
// Without one, storing an event creates no entries.
func (s *Store) SetFanOut(f FanOut) {
	if f == nil {
		s.fanOut.Store(nil)
		return
	}
	s.fanOut.Store(&fanOutBox{f: f})
}

// FanOutEvents enqueues the outbox entries of the partners subscribed to
// envs, events already stored: an entry enqueued before (the same event
// stored, replayed or swept again) is a duplicate and ignored. It costs
// no store command when nothing subscribes. The retry-sweeper calls it
// for the events it publishes late, so an event whose fan-out a crash
// interrupted still reaches its subscribers.
func (s *Store) FanOutEvents(ctx context.Context, envs []events.Envelope) error {
	box := s.fanOut.Load()
	if box == nil || len(envs) == 0 {
		return nil
	}
	entries, err := box.f.Entries(ctx, envs)
	if err != nil {
		return fmt.Errorf("store: fan out events to subscribed partners: %w", err)
	}
	if len(entries) == 0 {
		return nil
	}
	_, err = s.EnqueueOutbox(ctx, entries...)
	return err
}
