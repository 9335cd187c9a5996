package outbox

import (
	"context"
	"encoding/json"
	"time"
	"unicode/utf8"

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
		TraceParent: d.TraceParent, TraceID: d.TraceID, ThrottledSince: d.ThrottledSince,
		claim: claim{docID: d.ID, token: d.ClaimToken},
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
			Error: shortError(a.Err), SpanID: a.SpanID}
	}
	return st
}

// maxLogError is how much of an attempt's error its delivery log row
// keeps.
const maxLogError = 200

// shortError is err's message, cut to maxLogError bytes (on a rune
// boundary); "" for nil.
func shortError(err error) string {
	if err == nil {
		return ""
	}
	msg := err.Error()
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
		LastError: d.LastError, LastSuccessAt: d.LastSuccessAt, LastFailureAt: d.LastFailureAt, updatedAt: d.UpdatedAt,
	}
}

// document is partner id's endpoint document holding b.
func (b Breaker) document(id string) store.PartnerEndpoint {
	return store.PartnerEndpoint{
		PartnerID: id, State: b.State, ConsecutiveFailures: b.ConsecutiveFailures, OpenedAt: b.OpenedAt,
		OpenUntil: b.OpenUntil, LastError: b.LastError, LastSuccessAt: b.LastSuccessAt,
		LastFailureAt: b.LastFailureAt, UpdatedAt: b.updatedAt,
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

// saveBreakers saves the breakers that changed, by partner id.
func (r *Relay) saveBreakers(ctx context.Context, changed map[string]Breaker) error {
	docs := make([]store.PartnerEndpoint, 0, len(changed))
	for id, b := range changed {
		docs = append(docs, b.document(id))
	}
	return r.cfg.Store.SavePartnerEndpoints(ctx, docs...)
}

// partnerEvent is the seed-000 OUT document of e's delivery to p.
func partnerEvent(p Partner, e Entry) store.PartnerEvent {
	entityID, eventType := e.AggregateID, e.EventType
	if entityID == "" {
		entityID = e.ID
	}
	if eventType == "" {
		eventType = "delivery"
	}
	return store.PartnerEvent{
		ID: partnerEventID(e), EventType: eventType, EventStatus: status.PartnerPending,
		EventDirection: status.DirectionOut, CreatedBy: "outbox-relay", OutboxID: e.ID,
		EntityMetadata: store.PartnerEntityMetadata{PartnerID: p.ID, PartnerName: p.Name,
			EntityID: entityID, EntityType: e.AggregateType},
		EntityData: store.JSONDoc(e.Payload),
	}
}

// partnerAttempt is the record of e's attempt at at, which left its
// partner event in status.
func partnerAttempt(e Entry, at time.Time, status string) store.PartnerAttempt {
	return store.PartnerAttempt{ID: partnerEventID(e), N: e.Attempts, At: at, Status: status}
}
