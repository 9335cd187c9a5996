package opsevents

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/emit"
	"github.com/streamops/streamops/internal/tracing"
)

// Source is the metadata.source of every operational event.
const Source = "operations"

// Emitter stores an operational event in the history and publishes it to
// the operations topic (through emit: store first, publish, unpublished
// ones swept later). nil-safe: a nil *Emitter emits nothing (tests and
// functions without Kafka).
type Emitter struct {
	emit *emit.Emitter
	log  *slog.Logger
}

// New returns an Emitter that emits through e and logs what fails to log
// (slog.Default() when nil). A nil e gives a nil Emitter, which emits
// nothing.
func New(e *emit.Emitter, log *slog.Logger) *Emitter {
	if e == nil {
		return nil
	}
	if log == nil {
		log = slog.Default()
	}
	return &Emitter{emit: e, log: log}
}

// errNotOperational refuses an event type of another topic.
var errNotOperational = errors.New("opsevents: not an operational event type")

// Emit builds event t about partnerID with payload (one of the events
// package's operational payload structs) and id eventID (empty: a fresh
// one), and emits it: metadata.correlationId and metadata.partnerId are
// partnerID, metadata.traceId ctx's trace. An event stored before under
// eventID is not stored or published again. The error (a payload its
// schema refuses, a failed store) is logged too; a publish failure is
// none, the retry-sweeper publishes the event later. Callers ignore the
// error where the state it reports is already stored.
func (o *Emitter) Emit(ctx context.Context, t events.Type, partnerID string, payload any, eventID string) error {
	if o == nil {
		return nil
	}
	err := o.emitEvent(ctx, t, partnerID, payload, eventID)
	if err != nil {
		o.log.ErrorContext(ctx, "operational event not emitted", "eventType", t, "partnerId", partnerID,
			"eventId", eventID, "error", err)
	}
	return err
}

func (o *Emitter) emitEvent(ctx context.Context, t events.Type, partnerID string, payload any, eventID string) error {
	if t.Topic() != events.TopicOperations {
		return fmt.Errorf("%w: %q", errNotOperational, t)
	}
	if eventID == "" {
		eventID = events.NewEventID()
	}
	meta := &events.Metadata{Source: Source, TraceID: tracing.TraceID(ctx), CorrelationID: partnerID, PartnerID: partnerID}
	env, err := events.New(t, payload, meta)
	if err != nil {
		return err
	}
	env.EventID = eventID
	if _, err := o.emit.Emit(ctx, env); err != nil {
		return err
	}
	return nil
}

// ms is t as the events package writes times (UTC, milliseconds), so an id
// derived from a time read back from the store is the id derived from the
// time before it was stored.
func ms(t time.Time) string { return events.At(t).String() }

// PausedID is the id of the partner.paused event of the pause of partnerID
// that began at pausedAt.
func PausedID(partnerID string, pausedAt time.Time) string {
	return events.DeriveID(events.EventIDPrefix, partnerID, ms(pausedAt), string(events.PartnerPaused))
}

// ResumedID is the id of the partner.resumed event of the resume of
// partnerID at resumedAt.
func ResumedID(partnerID string, resumedAt time.Time) string {
	return events.DeriveID(events.EventIDPrefix, partnerID, ms(resumedAt), string(events.PartnerResumed))
}

// BreakerOpenedID is the id of the partner.breaker.opened event of the
// opening of partnerID's breaker at openedAt.
func BreakerOpenedID(partnerID string, openedAt time.Time) string {
	return events.DeriveID(events.EventIDPrefix, partnerID, ms(openedAt), string(events.PartnerBreakerOpened))
}

// BreakerClosedID is the id of the partner.breaker.closed event that ends
// the opening of partnerID's breaker at openedAt.
func BreakerClosedID(partnerID string, openedAt time.Time) string {
	return events.DeriveID(events.EventIDPrefix, partnerID, ms(openedAt), "closed")
}

// ThrottledID is the id of the partner.throttled event of the hold of
// partnerID until holdUntil.
func ThrottledID(partnerID string, holdUntil time.Time) string {
	return events.DeriveID(events.EventIDPrefix, partnerID, ms(holdUntil), string(events.PartnerThrottled))
}

// DeadLetteredID is the id of the delivery.dead_lettered event of outbox
// entry outboxID dead-lettered after attempts attempts in its round
// requeues (a requeued entry that dead-letters again is a new event).
func DeadLetteredID(outboxID string, attempts, requeues int) string {
	return events.DeriveID(events.EventIDPrefix, outboxID, strconv.Itoa(attempts), strconv.Itoa(requeues), string(events.DeliveryDeadLettered))
}

// FailingID is the id of the partner.failing event at percent of the
// failing run of partnerID that began at failingSince: each threshold of
// a run is reported once, whichever relay crosses it.
func FailingID(partnerID string, failingSince time.Time, percent int) string {
	return events.DeriveID(events.EventIDPrefix, partnerID, ms(failingSince), strconv.Itoa(percent), string(events.PartnerFailing))
}

// DisabledID is the id of the partner.disabled event of the disable of
// partnerID at disabledAt.
func DisabledID(partnerID string, disabledAt time.Time) string {
	return events.DeriveID(events.EventIDPrefix, partnerID, ms(disabledAt), string(events.PartnerDisabled))
}

// EnabledID is the id of the partner.enabled event of the enable of
// partnerID at enabledAt.
func EnabledID(partnerID string, enabledAt time.Time) string {
	return events.DeriveID(events.EventIDPrefix, partnerID, ms(enabledAt), string(events.PartnerEnabled))
}

// SubjectErasedID is the id of the subject.erased event of the erasure
// receipt receiptID: an erasure asked again answers the same receipt, and
// emits no second event.
func SubjectErasedID(receiptID string) string {
	return events.DeriveID(events.EventIDPrefix, receiptID, string(events.SubjectErased))
}
