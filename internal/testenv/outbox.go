package testenv

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/internal/status"
	"github.com/streamops/streamops/internal/store"
)

// OutboxTraceparent is the traceparent OutboxEntryIn's entries were
// enqueued under.
const OutboxTraceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

// OutboxEntryIn enqueues one delivery of an order to partner target, from
// source event src, and settles it into want as the relay would: pending
// (due in an hour), processing (claimed), completed, failed (its retry due
// in an hour) or dead_letter (refused with a 410, one row in its
// delivery log), enqueued under OutboxTraceparent. It returns its outbox
// id. Nothing else may be due in e's outbox.
func (e *Env) OutboxEntryIn(tb testing.TB, src, target, want string) string {
	tb.Helper()
	return e.OutboxEntryOfType(tb, src, target, "OR_MGMT", want)
}

// OutboxEntryOfType is OutboxEntryIn for an entry of event type
// eventType.
func (e *Env) OutboxEntryOfType(tb testing.TB, src, target, eventType, want string) string {
	tb.Helper()
	ctx := context.Background()
	id := store.OutboxID(src, target)
	next := time.Now()
	if want == status.OutboxPending {
		next = next.Add(time.Hour)
	}
	_, err := e.Store.EnqueueOutbox(ctx, store.OutboxEntry{OutboxID: id, AggregateType: "Order", AggregateID: "order-" + src,
		EventType: eventType, TargetProvider: target, Payload: store.JSONDoc(`{"orderId":59734}`), NextAttemptAt: next,
		TraceParent: OutboxTraceparent, TraceID: OutboxTraceparent[3:35]})
	require.NoError(tb, err)
	if want != status.OutboxPending {
		claimed, err := e.Store.ClaimDue(ctx, time.Now(), time.Minute, 10)
		require.NoError(tb, err)
		require.Len(tb, claimed, 1, "only the new entry is due")
		switch c := claimed[0]; want {
		case status.OutboxCompleted:
			err = e.Store.MarkCompleted(ctx, c)
		case status.OutboxFailed:
			err = e.Store.MarkFailed(ctx, c, time.Now().Add(time.Hour), "HTTP 503")
		case status.OutboxDeadLetter:
			_, err = e.Store.SettleOutbox(ctx, store.Settlement{Entry: c, Outcome: status.OutcomeDeadLettered, Error: "HTTP 410",
				Attempt: &store.DeliveryAttempt{At: time.Now(), DurationMs: 12, StatusCode: 410, Error: "HTTP 410", SpanID: "b7ad6b7169203331"}})
		}
		require.NoError(tb, err)
	}
	got, err := e.Store.GetOutboxEntry(ctx, id)
	require.NoError(tb, err)
	require.Equal(tb, want, got.Status)
	return id
}
