package outbox

import (
	"context"
	"encoding/json"
	"errors"
	"time"
	"unicode/utf8"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/fault"
	"github.com/streamops/streamops/internal/opsevents"
	"github.com/streamops/streamops/internal/status"
	"github.com/streamops/streamops/internal/store"
)

// The one place the relay's Entry and Breaker meet their store documents:
// claimed entries are loaded with claimDue and settled with
// (Entry).settlement; breakers are loaded with loadBreakers and saved
// with saveBreakers; a partner delivery's partner_events
// document and attempts are made here too. Nothing else in this package
// reads or writes a store.OutboxEntry's or store.PartnerEndpoint's fields.

// entryFromDocument is the Entry a claimed outbox document is.
func entryFromDocument(d store.OutboxEntry) Entry {
	return Entry{
		ID: d.OutboxID, Target: d.TargetProvider, AggregateType: d.AggregateType, AggregateID: d.AggregateID,
		EventType: d.EventType, Payload: json.RawMessage(d.Payload), Attempts: d.Attempts, MaxAttempts: d.MaxAttempts,
		Requeues: d.Requeues, TraceParent: d.TraceParent, TraceID: d.TraceID, ThrottledSince: d.ThrottledSince,
		claim: claim{docID: d.ID, token: d.ClaimToken, due: d.NextAttemptAt},
	}
}

// claimDue claims a batch of due entries.
func (r *Relay) claimDue(ctx context.Context, now time.Time) ([]Entry, error) {
	docs, err := r.cfg.Store.ClaimDue(ctx, now, r.cfg.Lease, r.cfg.BatchSize)
	if err != nil {
		return nil, err
	}
	claimed := make([]Entry, len(docs))
	for i, d := range docs {
		claimed[i] = entryFromDocument(d)
	}
	return claimed, nil
}

// settlement is what store.Store.SettleOutbox records for this claim of e:
// outcome o, due again at next, failed with errMsg, and the row of its
// delivery log a partner attempt a adds (nil: none).
func (e Entry) settlement(o status.Outcome, next time.Time, errMsg string, a *Attempt) store.Settlement {
	st := store.Settlement{
		Entry: store.OutboxEntry{ID: e.claim.docID, OutboxID: e.ID, ClaimToken: e.claim.token,
			Attempts: e.Attempts, MaxAttempts: e.MaxAttempts},
		Outcome: o, NextAttemptAt: next, Error: errMsg,
	}
	if a != nil {
		st.Attempt = &store.DeliveryAttempt{At: a.At, DurationMs: a.Duration.Milliseconds(), StatusCode: a.StatusCode,
			Error: shortError(a.Err), SpanID: a.SpanID, ResponseBody: a.Body}
	}
	return st
}

// maxLogError is how much of an attempt's error its delivery log row
// keeps.
const maxLogError = 200

// shortError is err's message as fault.Text keeps it, cut to maxLogError
// bytes (on a rune boundary); "" for nil.
func shortError(err error) string {
	msg := fault.Text(err)
	if len(msg) <= maxLogError {
		return msg
	}
	cut := maxLogError
	for cut > 0 && !utf8.RuneStart(msg[cut]) {
		cut--
	}
	return msg[:cut] + "…"
}

// breakerFromDocument is the Breaker a partner endpoint document holds.
func breakerFromDocument(d store.PartnerEndpoint) Breaker {
	return Breaker{
		State: d.State, ConsecutiveFailures: d.ConsecutiveFailures, OpenedAt: d.OpenedAt, OpenUntil: d.OpenUntil,
		LastError: d.LastError, LastSuccessAt: d.LastSuccessAt, LastFailureAt: d.LastFailureAt,
		FailingSince: d.FailingSince, FailingWarned: d.FailingWarned, updatedAt: d.UpdatedAt,
	}
}

// document is partner id's endpoint document holding b.
func (b Breaker) document(id string) store.PartnerEndpoint {
	return store.PartnerEndpoint{
		PartnerID: id, State: b.State, ConsecutiveFailures: b.ConsecutiveFailures, OpenedAt: b.OpenedAt,
		OpenUntil: b.OpenUntil, LastError: b.LastError, LastSuccessAt: b.LastSuccessAt,
		LastFailureAt: b.LastFailureAt, FailingSince: b.FailingSince, FailingWarned: b.FailingWarned, UpdatedAt: b.updatedAt,
	}
}

// loadBreakers loads the breakers of partners ids, noting their holds.
func (r *Relay) loadBreakers(ctx context.Context, ids []string) (map[string]Breaker, error) {
	docs, err := r.cfg.Store.PartnerEndpoints(ctx, ids...)
	if err != nil {
		return nil, err
	}
	out := make(map[string]Breaker, len(docs))
	for id, d := range docs {
		out[id] = breakerFromDocument(d)
		if d.HoldUntil != nil {
			r.holds.note(id, *d.HoldUntil)
		}
	}
	return out, nil
}

// saveBreakers saves the breakers that changed, by partner id, each only
// while the stored one is in the same opening: a breaker another relay
// opened or closed meanwhile keeps that relay's transition (this relay's
// counts since are lost, which at worst delays the next transition).
func (r *Relay) saveBreakers(ctx context.Context, changed map[string]Breaker) error {
	var errs []error
	for id, b := range changed {
		if _, err := r.cfg.Store.SaveBreaker(ctx, b.document(id), b.OpenedAt); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// commitTransition stores partner id's breaker transition tr, guarded by
// the opening it replaces, and reports it (partner.breaker.opened or
// .closed) when this save is the one that changed the stored breaker. A
// refused save means another relay moved the breaker first: this relay
// adopts the stored breaker and reports nothing. A failed one reports
// nothing either; the batch's breakers are saved again at its end.
func (r *Relay) commitTransition(ctx context.Context, id string, tr *transition, brk *breakers) {
	applied, err := r.cfg.Store.SaveBreaker(ctx, tr.after.document(id), tr.prev)
	if err != nil {
		r.cfg.Logger.WarnContext(ctx, "breaker transition not saved", "target", id, "opened", tr.opened, "error", err)
		return
	}
	if !applied {
		if docs, err := r.cfg.Store.PartnerEndpoints(ctx, id); err == nil {
			brk.adopt(id, tr.after.OpenedAt, breakerFromDocument(docs[id]))
		}
		return
	}
	b := tr.after
	if tr.opened {
		// Emit logs its failure; the breaker is stored either way.
		_ = r.cfg.Operations.Emit(ctx, events.PartnerBreakerOpened, id, events.PartnerBreakerOpenedPayload{
			PartnerID: id, OpenedAt: events.At(*b.OpenedAt), OpenUntil: events.At(*b.OpenUntil),
			ConsecutiveFailures: b.ConsecutiveFailures, LastError: b.LastError,
		}, opsevents.BreakerOpenedID(id, *b.OpenedAt))
		return
	}
	p := events.PartnerBreakerClosedPayload{PartnerID: id, ClosedAt: events.At(tr.at), OpenedAt: events.AtPtr(tr.prev)}
	opened := tr.at
	if tr.prev != nil {
		opened = *tr.prev
	}
	_ = r.cfg.Operations.Emit(ctx, events.PartnerBreakerClosed, id, p, opsevents.BreakerClosedID(id, opened))
}

// partnerKey is seed 000's idempotency key of e's delivery: the entity
// (the entry's aggregate, else the entry itself) and the event type.
func partnerKey(e Entry) (entityID, eventType string) {
	entityID, eventType = e.AggregateID, e.EventType
	if entityID == "" {
		entityID = e.ID
	}
	if eventType == "" {
		eventType = "delivery"
	}
	return entityID, eventType
}

// partnerEventID is the partner_events id of e's delivery to p: seed
// 000's key (store.PartnerEventID) scoped by partner and direction.
func partnerEventID(p Partner, e Entry) string {
	entityID, eventType := partnerKey(e)
	return store.PartnerEventID(p.ID, status.DirectionOut, entityID, eventType)
}

// partnerEvent is the seed-000 OUT document of e's delivery to p.
func partnerEvent(p Partner, e Entry) store.PartnerEvent {
	entityID, eventType := partnerKey(e)
	return store.PartnerEvent{
		ID: partnerEventID(p, e), EventType: eventType, EventStatus: status.PartnerPending,
		EventDirection: status.DirectionOut, CreatedBy: "outbox-relay", OutboxID: e.ID,
		EntityMetadata: store.PartnerEntityMetadata{PartnerID: p.ID, PartnerName: p.Name,
			EntityID: entityID, EntityType: e.AggregateType},
		EntityData: store.JSONDoc(e.Payload),
	}
}

// partnerAttempt is the record of e's attempt to p at at, which left its
// partner event in status.
func partnerAttempt(p Partner, e Entry, at time.Time, status string) store.PartnerAttempt {
	return store.PartnerAttempt{ID: partnerEventID(p, e), N: e.Attempts, At: at, Status: status, OutboxID: e.ID}
}

// deadLetter is an entry this claim dead-letters, with the last answer,
// for its delivery.dead_lettered event.
type deadLetter struct {
	entry Entry
	ctx   context.Context
	event events.DeliveryDeadLetteredPayload
}

// newDeadLetter is the dead letter of e at now after error errMsg; a is
// the attempt that ended it (nil: none was made in this claim).
func newDeadLetter(ctx context.Context, e Entry, errMsg string, a *Attempt, now time.Time) deadLetter {
	eventType := e.EventType
	if eventType == "" {
		eventType = "delivery"
	}
	p := events.DeliveryDeadLetteredPayload{OutboxID: e.ID, PartnerID: e.Target, OutboxEventType: eventType,
		Attempts: e.Attempts, Error: errMsg, DeadLetteredAt: events.At(now)}
	if a != nil {
		p.StatusCode, p.ResponseBody = a.StatusCode, a.Body
	}
	return deadLetter{entry: e, ctx: ctx, event: p}
}

// reportDeadLetters emits delivery.dead_lettered for the dead letters whose
// settlement the store applied: all of them when every settlement of the
// group was (settled == all), else those the store shows dead-lettered in
// this round (a lost lease left the others to another relay's claim).
func (r *Relay) reportDeadLetters(ctx context.Context, dls []deadLetter, settled, all int) {
	if r.cfg.Operations == nil {
		return
	}
	for _, dl := range dls {
		e := dl.entry
		if settled < all {
			d, err := r.cfg.Store.GetOutboxEntry(ctx, e.ID)
			if err != nil || d.Status != status.OutboxDeadLetter || d.Attempts != e.Attempts || d.Requeues != e.Requeues {
				continue
			}
		}
		// Emit logs its failure; the dead letter is stored either way.
		_ = r.cfg.Operations.Emit(dl.ctx, events.DeliveryDeadLettered, e.Target, dl.event,
			opsevents.DeadLetteredID(e.ID, e.Attempts, e.Requeues))
	}
}
