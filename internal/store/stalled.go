package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/256dpi/lungo"
	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo/options"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/ingest/webhookstatus"
	"github.com/streamops/streamops/internal/task/taskstatus"
	"github.com/streamops/streamops/internal/workflow/workflowstatus"
)

// Stalled work is what a crash, a lost record or a rolled-back write left
// non-terminal with no progress since a cut-off; the retry-sweeper drives it
// again from its stored state and stamps it re-driven, so it is tried once
// per stall period rather than on every run.

// notRedrivenSince matches documents not re-driven after before (field is
// the re-drive stamp).
func notRedrivenSince(field string, before time.Time) bson.M {
	return bson.M{"$or": bson.A{
		bson.M{field: bson.M{"$exists": false}},
		bson.M{field: bson.M{"$lte": bsonTime(before)}},
	}}
}

// StalledWorkflows returns up to limit workflows still pending or
// processing whose last progress (updatedAt) and last re-drive are both at
// or before before, oldest first.
func (s *Store) StalledWorkflows(ctx context.Context, before time.Time, limit int) ([]Workflow, error) {
	return findStalled[Workflow](ctx, s.workflows, bson.M{"$and": bson.A{
		bson.M{"status": bson.M{"$in": workflowstatus.Active()}},
		bson.M{"updatedAt": bson.M{"$lte": bsonTime(before)}},
		notRedrivenSince("redrivenAt", before),
	}}, "updatedAt", limit)
}

// StalledTasks returns up to limit tasks still pending or processing whose
// last progress (updatedAt) and last re-drive are both at or before before,
// oldest first. A failed task waiting for its retry is not stalled: the
// sweeper's retry pass re-emits it when it is due.
func (s *Store) StalledTasks(ctx context.Context, before time.Time, limit int) ([]Task, error) {
	return findStalled[Task](ctx, s.tasks, bson.M{"$and": bson.A{
		bson.M{"status": bson.M{"$in": taskstatus.Active()}},
		bson.M{"updatedAt": bson.M{"$lte": bsonTime(before)}},
		notRedrivenSince("redrivenAt", before),
	}}, "updatedAt", limit)
}

// StalledWebhookEvents returns up to limit webhook events still processing
// (routed, their workflow or task not settled) since at or before before
// and not re-driven since, oldest first. Rows left received are routed by
// WebhookEventsToRoute.
func (s *Store) StalledWebhookEvents(ctx context.Context, before time.Time, limit int) ([]WebhookEvent, error) {
	return findStalled[WebhookEvent](ctx, s.webhookEvents, bson.M{"$and": bson.A{
		bson.M{"status": webhookstatus.Processing},
		bson.M{"processing_started_at": bson.M{"$lte": bsonTime(before)}},
		notRedrivenSince("redriven_at", before),
	}}, "processing_started_at", limit)
}

func findStalled[T any](ctx context.Context, coll lungo.ICollection, filter bson.M, sortBy string, limit int) ([]T, error) {
	cur, err := coll.Find(ctx, filter, options.Find().
		SetSort(bson.D{{Key: sortBy, Value: 1}, {Key: "_id", Value: 1}}).SetLimit(int64(limit)))
	if err != nil {
		return nil, fmt.Errorf("store: find stalled work: %w", normalise(err))
	}
	var out []T
	if err := cur.All(ctx, &out); err != nil {
		return nil, fmt.Errorf("store: find stalled work: %w", normalise(err))
	}
	return out, nil
}

// MarkWorkflowRedriven stamps workflowID as re-driven now.
func (s *Store) MarkWorkflowRedriven(ctx context.Context, workflowID string) error {
	return s.markRedriven(ctx, s.workflows, workflowID, "redrivenAt")
}

// MarkTaskRedriven stamps taskID as re-driven now.
func (s *Store) MarkTaskRedriven(ctx context.Context, taskID string) error {
	return s.markRedriven(ctx, s.tasks, taskID, "redrivenAt")
}

// MarkWebhookEventRedriven stamps the webhook event as re-driven now.
func (s *Store) MarkWebhookEventRedriven(ctx context.Context, eventID string) error {
	return s.markRedriven(ctx, s.webhookEvents, eventID, "redriven_at")
}

func (s *Store) markRedriven(ctx context.Context, coll lungo.ICollection, id, field string) error {
	if _, err := coll.UpdateOne(ctx, bson.M{"_id": id}, bson.M{"$set": bson.M{field: s.now()}}); err != nil {
		return fmt.Errorf("store: stamp %s re-driven: %w", id, normalise(err))
	}
	return nil
}

// LatestDrivingEvent returns the newest stored event of one of types that
// belongs to aggregateID (or, with byExecution, to the execution
// aggregateID names: the events a webhook delivery started): the event to
// publish again to drive the aggregate on. ErrNotFound when there is none.
func (s *Store) LatestDrivingEvent(ctx context.Context, aggregateID string, byExecution bool, types ...events.Type) (EventDocument, error) {
	field := "aggregate_id"
	if byExecution {
		field = "execution_id"
	}
	names := make(bson.A, len(types))
	for i, t := range types {
		names[i] = string(t)
	}
	docs, err := s.findEvents(ctx, bson.M{field: aggregateID, "event_type": bson.M{"$in": names}},
		options.Find().SetSort(bson.D{{Key: "timestamp", Value: -1}, {Key: "_id", Value: -1}}).SetLimit(1))
	if err != nil {
		return EventDocument{}, err
	}
	if len(docs) == 0 {
		return EventDocument{}, fmt.Errorf("%w: no %v event of %s", ErrNotFound, types, aggregateID)
	}
	return docs[0], nil
}

// WorkStartedBy returns the newest workflow or task the webhook event
// started (its webhookEventId), or neither when it started none.
func (s *Store) WorkStartedBy(ctx context.Context, webhookEventID string) (*Workflow, *Task, error) {
	newest := options.FindOne().SetSort(bson.D{{Key: "createdAt", Value: -1}, {Key: "_id", Value: -1}})
	var wf Workflow
	err := s.workflows.FindOne(ctx, bson.M{"webhookEventId": webhookEventID}, newest).Decode(&wf)
	if err = normalise(err); err == nil {
		return &wf, nil, nil
	} else if !errors.Is(err, ErrNotFound) {
		return nil, nil, fmt.Errorf("store: find the workflow of webhook event %s: %w", webhookEventID, err)
	}
	var t Task
	err = s.tasks.FindOne(ctx, bson.M{"webhookEventId": webhookEventID}, newest).Decode(&t)
	if err = normalise(err); err == nil {
		return nil, &t, nil
	} else if !errors.Is(err, ErrNotFound) {
		return nil, nil, fmt.Errorf("store: find the task of webhook event %s: %w", webhookEventID, err)
	}
	return nil, nil, nil
}
