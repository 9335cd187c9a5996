package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo/options"

	"github.com/streamops/streamops/internal/status"
)

// DeliveryFilter selects one partner's outbox entries (its deliveries);
// empty fields match everything but PartnerID, which is required.
type DeliveryFilter struct {
	// PartnerID is the entries' target_provider.
	PartnerID string
	Status    string
	EventType string
	// Since and Until bound created_at, both included.
	Since, Until *time.Time
}

// query is f as a filter document.
func (f DeliveryFilter) query() (bson.M, error) {
	if f.PartnerID == "" {
		return nil, errors.New("store: a delivery filter needs a partner id")
	}
	q := equalTo(map[string]string{"target_provider": f.PartnerID, "status": f.Status, "event_type": f.EventType})
	putTimeRange(q, "created_at", f.Since, f.Until)
	return q, nil
}

// DeliveryQuery is a page of a partner's deliveries.
type DeliveryQuery struct {
	DeliveryFilter
	// After continues a listing from a (created_at, id) position.
	After *Cursor
	// Limit caps the page; default 100.
	Limit int
}

// ListPartnerDeliveries returns a partner's outbox entries newest first
// (created_at, then id), without their payloads, and the cursor of the
// next page ("" on the last).
func (s *Store) ListPartnerDeliveries(ctx context.Context, q DeliveryQuery) ([]OutboxEntry, string, error) {
	filter, err := q.query()
	if err != nil {
		return nil, "", err
	}
	if q.Limit <= 0 {
		q.Limit = 100
	}
	return findNewest(ctx, s.outbox, filter, "created_at", 1, q.After, q.Limit,
		func(e OutboxEntry) Cursor { return Cursor{Timestamp: e.CreatedAt, EventID: e.ID} },
		options.Find().SetProjection(bson.M{"payload": 0}))
}

// MaxBulkRequeue bounds how many entries one RequeuePartnerDeliveries
// requeues: the ids are read in one query and updated in one, within one
// API request.
const MaxBulkRequeue = 10000

// ErrCountChanged is returned by RequeuePartnerDeliveries when the entries
// its filter matches are no longer as many as the operator confirmed;
// errors.As gives the *CountChangedError. Nothing was changed.
var ErrCountChanged = errors.New("store: count changed")

// CountChangedError says how many entries match now.
type CountChangedError struct {
	Confirmed, Matched int
}

func (e *CountChangedError) Error() string {
	return fmt.Sprintf("store: %d entries match now, not the %d confirmed; count again and confirm", e.Matched, e.Confirmed)
}

// Is makes errors.Is(err, ErrCountChanged) hold.
func (e *CountChangedError) Is(target error) bool { return target == ErrCountChanged }

// ErrTooMany is returned by RequeuePartnerDeliveries for a filter
// matching more than MaxBulkRequeue entries. Nothing was changed.
var ErrTooMany = errors.New("store: too many entries")

// CountPartnerDeliveries counts the entries f matches.
func (s *Store) CountPartnerDeliveries(ctx context.Context, f DeliveryFilter) (int, error) {
	filter, err := f.query()
	if err != nil {
		return 0, err
	}
	n, err := s.outbox.CountDocuments(ctx, filter)
	if err != nil {
		return 0, fmt.Errorf("store: count the deliveries of partner %s: %w", f.PartnerID, normalise(err))
	}
	return int(n), nil
}

// RequeuePartnerDeliveries requeues every entry f matches, each as
// RequeueOutboxEntry does (a new round, by the principal id by, its
// partner delivery restarted), provided they are still exactly confirm
// entries: otherwise a *CountChangedError with the current count
// (ErrCountChanged), and nothing changes. f.Status defaults to
// dead_letter and must be a requeueable status. It returns how many it
// requeued: fewer than confirm only when some were requeued by someone
// else meanwhile. Four commands whatever the count: the ids, one
// conditional update, the ids it took, one update of their partner
// deliveries.
func (s *Store) RequeuePartnerDeliveries(ctx context.Context, f DeliveryFilter, confirm int, by string) (int, error) {
	if f.Status == "" {
		f.Status = status.OutboxDeadLetter
	}
	requeueable := status.OutboxRequeueable()
	if !slices.Contains(requeueable, f.Status) {
		return 0, &StatusConflictError{Action: "requeue", Status: f.Status, Allowed: requeueable}
	}
	filter, err := f.query()
	if err != nil {
		return 0, err
	}
	found, err := findAll[idOnly](ctx, s.outbox, filter, options.Find().SetProjection(bson.M{"_id": 1}).
		SetLimit(MaxBulkRequeue+1))
	if err != nil {
		return 0, fmt.Errorf("store: find the deliveries of partner %s to requeue: %w", f.PartnerID, err)
	}
	if len(found) > MaxBulkRequeue {
		return 0, fmt.Errorf("%w: the filter matches more than %d entries; narrow it", ErrTooMany, MaxBulkRequeue)
	}
	if len(found) != confirm {
		return 0, &CountChangedError{Confirmed: confirm, Matched: len(found)}
	}
	if confirm == 0 {
		return 0, nil
	}
	ids := make([]string, len(found))
	for i, d := range found {
		ids[i] = d.ID
	}
	now := bsonTime(s.now())
	marks := requeueMarks(by, now)
	if _, err := s.outbox.UpdateMany(ctx, bson.M{"_id": bson.M{"$in": ids}, "status": bson.M{"$in": requeueable}},
		roundUpdate(now, marks)); err != nil {
		return 0, fmt.Errorf("store: requeue the deliveries of partner %s: %w", f.PartnerID, normalise(err))
	}
	// The ones this requeue took: an entry requeued by someone else in
	// between carries another principal or time.
	taken, err := findAll[idOnly](ctx, s.outbox, bson.M{"_id": bson.M{"$in": ids}, "requeued_by": by, "requeued_at": now},
		options.Find().SetProjection(bson.M{"_id": 1}))
	if err != nil {
		return 0, fmt.Errorf("store: read the requeued deliveries of partner %s: %w", f.PartnerID, err)
	}
	takenIDs := make([]string, len(taken))
	for i, d := range taken {
		takenIDs[i] = d.ID
	}
	return len(takenIDs), s.restartPartnerDeliveries(ctx, now, takenIDs...)
}
