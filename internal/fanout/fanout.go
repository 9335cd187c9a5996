package fanout

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/subscribe"
	"github.com/streamops/streamops/internal/tracing"
)

// AggregateType is the aggregate_type of the outbox entries a
// subscription creates: their aggregate is the event they deliver.
const AggregateType = "event"

// FanOut is the store.FanOut of a partner directory.
type FanOut struct {
	partners Directory
	log      *slog.Logger

	mu       sync.Mutex
	compiled map[string]compiled // by partner id
}

// compiled are one partner's subscriptions as last seen, and their
// matchers.
type compiled struct {
	subs     []subscribe.Subscription
	matchers []*subscribe.Matcher
}

// New is the fan-out of the subscriptions partners gives. log receives
// the subscriptions that do not compile (the partner API and the
// partners file refuse them, so only a hand-edited store has one); nil
// is slog.Default.
func New(partners Directory, log *slog.Logger) (*FanOut, error) {
	if partners == nil {
		return nil, errors.New("fanout: a partner directory is required")
	}
	if log == nil {
		log = slog.Default()
	}
	return &FanOut{partners: partners, log: log, compiled: map[string]compiled{}}, nil
}

// subscriber is a partner with subscriptions, ready to match.
type subscriber struct {
	id       string
	matchers []*subscribe.Matcher
}

// subscribers are the partners of the directory (also returned) that
// subscribe to anything, by id, their matchers compiled once per change
// of their subscriptions. A partner absent from the directory (deleted)
// is not one; a disabled one is: its entries wait for it to be enabled.
func (f *FanOut) subscribers(ctx context.Context) ([]subscriber, map[string][]subscribe.Subscription, error) {
	partners, err := f.partners.Subscriptions(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("fanout: read the partners: %w", err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []subscriber
	for id, subs := range partners {
		if len(subs) == 0 {
			delete(f.compiled, id)
			continue
		}
		c, ok := f.compiled[id]
		if !ok || !sameSubscriptions(c.subs, subs) {
			c = compiled{subs: slices.Clone(subs)}
			for i, s := range subs {
				m, err := subscribe.Compile(s)
				if err != nil {
					f.log.WarnContext(ctx, "fanout: a subscription does not compile; it selects nothing", "partner", id, "subscription", i, "error", err)
					continue
				}
				c.matchers = append(c.matchers, m)
			}
			f.compiled[id] = c
		}
		if len(c.matchers) > 0 {
			out = append(out, subscriber{id: id, matchers: c.matchers})
		}
	}
	for id := range f.compiled {
		if _, ok := partners[id]; !ok {
			delete(f.compiled, id)
		}
	}
	slices.SortFunc(out, func(a, b subscriber) int { return strings.Compare(a.id, b.id) })
	return out, partners, nil
}

// sameSubscriptions says whether a and b select the same events as
// written.
func sameSubscriptions(a, b []subscribe.Subscription) bool {
	return slices.EqualFunc(a, b, func(x, y subscribe.Subscription) bool {
		return slices.Equal(x.EventTypes, y.EventTypes) && string(x.Filter) == string(y.Filter)
	})
}

// Entries are the outbox entries of envs: one per event and partner whose
// subscriptions select it (any of them), in the order of envs, then of
// partner ids. See store.FanOut.
func (f *FanOut) Entries(ctx context.Context, envs []events.Envelope) ([]store.OutboxEntry, error) {
	subs, _, err := f.subscribers(ctx)
	if err != nil || len(subs) == 0 {
		return nil, err
	}
	return entries(ctx, subs, envs)
}

// entries are the outbox entries of envs for subs, in the trace of ctx.
func entries(ctx context.Context, subs []subscriber, envs []events.Envelope) ([]store.OutboxEntry, error) {
	traceparent, _ := tracing.Traceparent(ctx)
	traceID := tracing.TraceID(ctx)
	var out []store.OutboxEntry
	for _, env := range envs {
		to := recipients(subs, env)
		if len(to) == 0 {
			continue
		}
		payload, err := json.Marshal(env)
		if err != nil {
			return nil, fmt.Errorf("fanout: encode event %s: %w", env.EventID, err)
		}
		for _, id := range to {
			out = append(out, Entry(env, id, payload, traceparent, traceID))
		}
	}
	return out, nil
}

// Entry is the outbox entry that delivers env (whose JSON is payload) to
// partner partnerID, in the trace traceparent (traceID): its id derived from the event (the original's when
// env is a replay's copy) and the partner, its event_type the event's.
func Entry(env events.Envelope, partnerID string, payload []byte, traceparent, traceID string) store.OutboxEntry {
	e := store.OutboxEntry{
		OutboxID: store.SubscriptionOutboxID(SourceEventID(env), partnerID), AggregateType: AggregateType,
		AggregateID: env.EventID, EventType: string(env.EventType), TargetProvider: partnerID,
		Payload: store.JSONDoc(payload), TraceParent: traceparent, TraceID: traceID,
	}
	if e.TraceID == "" && env.Metadata != nil {
		e.TraceID = env.Metadata.TraceID
	}
	return e
}

// SourceEventID is the event a delivery of env is the delivery of: the
// original event when env is a replay's copy of it (metadata.replayOf),
// so delivering a replay does not deliver the event a second time.
func SourceEventID(env events.Envelope) string {
	if env.Metadata != nil && env.Metadata.ReplayOf != "" {
		return env.Metadata.ReplayOf
	}
	return env.EventID
}

// ErrUnknownPartner is a partner the directory does not hold.
var ErrUnknownPartner = errors.New("fanout: partner not in the directory")

// PartnerEntries are the outbox entries of envs for partner partnerID
// alone: those its subscriptions select, loop guard included, with the
// ids the store's fan-out gives them, so what it enqueued before is a
// duplicate. A replay aimed at one partner enqueues them instead of
// publishing (history.Replayer). An absent partner is ErrUnknownPartner.
func (f *FanOut) PartnerEntries(ctx context.Context, partnerID string, envs []events.Envelope) ([]store.OutboxEntry, error) {
	subs, partners, err := f.subscribers(ctx)
	if err != nil {
		return nil, err
	}
	if _, ok := partners[partnerID]; !ok {
		return nil, fmt.Errorf("%w: %q", ErrUnknownPartner, partnerID)
	}
	i := slices.IndexFunc(subs, func(s subscriber) bool { return s.id == partnerID })
	if i < 0 {
		return nil, nil // it subscribes to nothing
	}
	return entries(ctx, subs[i:i+1], envs)
}
