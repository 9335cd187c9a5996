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
	"github.com/streamops/streamops/internal/status"
)

// Stalled work is what a crash, a lost record or a rolled-back write left
// non-terminal with no progress since a cut-off; the retry-sweeper drives it
// again from its stored state and stamps it re-driven, so it is tried once
// per stall period rather than on every run.

// stallFields name, for one kind of work, the fields stamped with its last
// progress and with its last re-drive.
type stallFields struct{ progress, redriven string }

var (
	// projectionStall is a workflow's or a task's: progress is any update.
	projectionStall = stallFields{progress: "updatedAt", redriven: "redrivenAt"}
	// webhookStall is a webhook event's: progress is its routing.
	webhookStall = stallFields{progress: "processing_started_at", redriven: "redriven_at"}
)

// StalledWorkflows returns up to limit workflows still pending or
// processing whose last progress (updatedAt) and last re-drive are both at
// or before before, oldest first.
func (s *Store) StalledWorkflows(ctx context.Context, before time.Time, limit int) ([]Workflow, error) {
	return findStalled[Workflow](ctx, s.workflows, bson.M{"$in": status.WorkflowActive()}, projectionStall, before, limit)
}

// StalledTasks returns up to limit tasks still pending or processing whose
// last progress (updatedAt) and last re-drive are both at or before before,
// oldest first. A failed task waiting for its retry is not stalled: the
// sweeper's retry pass redelivers its task.failed when it is due.
func (s *Store) StalledTasks(ctx context.Context, before time.Time, limit int) ([]Task, error) {
	return findStalled[Task](ctx, s.tasks, bson.M{"$in": status.TaskActive()}, projectionStall, before, limit)
}

// StalledWebhookEvents returns up to limit webhook events still processing
// (routed, their workflow or task not settled) since at or before before
// and not re-driven since, oldest first. Rows left received are routed by
// WebhookEventsToRoute.
func (s *Store) StalledWebhookEvents(ctx context.Context, before time.Time, limit int) ([]WebhookEvent, error) {
	return findStalled[WebhookEvent](ctx, s.webhookEvents, status.WebhookProcessing, webhookStall, before, limit)
}

// findStalled returns up to limit documents of coll whose status matches
// status and whose last progress and last re-drive (none counts) are both
// at or before before, oldest progress first.
func findStalled[T any](ctx context.Context, coll lungo.ICollection, status any, f stallFields, before time.Time, limit int) ([]T, error) {
	before = bsonTime(before)
	out, err := findAll[T](ctx, coll, bson.M{"$and": bson.A{
		bson.M{"status": status},
		bson.M{f.progress: bson.M{"$lte": before}},
		bson.M{"$or": bson.A{bson.M{f.redriven: bson.M{"$exists": false}}, bson.M{f.redriven: bson.M{"$lte": before}}}},
	}}, options.Find().SetSort(bson.D{{Key: f.progress, Value: 1}, {Key: "_id", Value: 1}}).SetLimit(int64(limit)))
	if err != nil {
		return nil, fmt.Errorf("store: find stalled work: %w", err)
	}
	return out, nil
}

// MarkWorkflowRedriven stamps workflowID as re-driven now.
func (s *Store) MarkWorkflowRedriven(ctx context.Context, workflowID string) error {
	return s.markRedriven(ctx, s.workflows, workflowID, projectionStall)
}

// MarkTaskRedriven stamps taskID as re-driven now.
func (s *Store) MarkTaskRedriven(ctx context.Context, taskID string) error {
	return s.markRedriven(ctx, s.tasks, taskID, projectionStall)
}

// MarkWebhookEventRedriven stamps the webhook event as re-driven now.
func (s *Store) MarkWebhookEventRedriven(ctx context.Context, eventID string) error {
	return s.markRedriven(ctx, s.webhookEvents, eventID, webhookStall)
}

func (s *Store) markRedriven(ctx context.Context, coll lungo.ICollection, id string, f stallFields) error {
	if _, err := coll.UpdateOne(ctx, bson.M{"_id": id}, bson.M{"$set": bson.M{f.redriven: s.now()}}); err != nil {
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
	docs, err := findAll[EventDocument](ctx, s.events, bson.M{field: aggregateID, "event_type": bson.M{"$in": names}},
		options.Find().SetSort(bson.D{{Key: "timestamp", Value: -1}, {Key: "_id", Value: -1}}).SetLimit(1))
	if err != nil {
		return EventDocument{}, err
	}
	if len(docs) == 0 {
		return EventDocument{}, fmt.Errorf("%w: no %v event of %s", ErrNotFound, types, aggregateID)
	}
	return docs[0], nil
}

// WorkStartedBy returns the workflow or task the webhook event row's
// current attempt started, or neither when it started none (or it is not
// stored). A routed row names it (RunID), so that is one or two reads by
// _id; a row without one (stored before rows carried their run) falls
// back to the newest workflow or task carrying its webhookEventId, which
// no index serves, so its cost grows with the collections.
func (s *Store) WorkStartedBy(ctx context.Context, row WebhookEvent) (*Workflow, *Task, error) {
	filter, sort := workStartedBy(row)
	var opts []*options.FindOneOptions
	if sort != nil {
		opts = append(opts, options.FindOne().SetSort(sort))
	}
	wf, err := findOne[Workflow](ctx, s.workflows, filter, opts...)
	if err == nil {
		return &wf, nil, nil
	} else if !errors.Is(err, ErrNotFound) {
		return nil, nil, fmt.Errorf("store: find the workflow of webhook event %s: %w", row.EventID, err)
	}
	t, err := findOne[Task](ctx, s.tasks, filter, opts...)
	if err == nil {
		return nil, &t, nil
	} else if !errors.Is(err, ErrNotFound) {
		return nil, nil, fmt.Errorf("store: find the task of webhook event %s: %w", row.EventID, err)
	}
	return nil, nil, nil
}

// workStartedBy is the query WorkStartedBy sends to workflows, then
// tasks: by the row's run, or (no run) its webhookEventId, newest first.
func workStartedBy(row WebhookEvent) (filter bson.M, sort bson.D) {
	if row.RunID != "" {
		return bson.M{"_id": row.RunID}, nil
	}
	return bson.M{"webhookEventId": row.EventID}, bson.D{{Key: "createdAt", Value: -1}, {Key: "_id", Value: -1}}
}
