package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/mongo/options"

	"github.com/streamops/streamops/internal/task/taskstatus"
)

// GetTasks loads tasks by taskId with one query; tasks that do not exist
// are absent from the map.
func (s *Store) GetTasks(ctx context.Context, taskIDs []string) (map[string]Task, error) {
	out, err := findByIDs(ctx, s.tasks, taskIDs, func(t Task) string { return t.ID })
	if err != nil {
		return nil, fmt.Errorf("store: load tasks: %w", err)
	}
	return out, nil
}

// InsertTasks stores new pending tasks with one unordered bulk insert (the
// tasks a batch of workflows starts). Tasks stored before are reported in
// Duplicates and left as they were.
func (s *Store) InsertTasks(ctx context.Context, tasks ...Task) (InsertResult, error) {
	now := s.now()
	ids := make([]string, len(tasks))
	docs := make([]any, len(tasks))
	for i, t := range tasks {
		if t.TaskID == "" {
			return InsertResult{}, errors.New("store: task needs taskId")
		}
		t.ID, t.Status = t.TaskID, taskstatus.Pending
		stampCreated(&t.CreatedAt, &t.UpdatedAt, now)
		ids[i], docs[i] = t.ID, t
	}
	res, err := insertUnordered(ctx, s.tasks, ids, docs)
	if err != nil {
		return res, fmt.Errorf("store: insert tasks: %w", err)
	}
	return res, nil
}

// TaskOutcome is the state one attempt of a task left behind.
type TaskOutcome struct {
	// Task is the task after the attempt: Status, RetryCount, NextRetryAt,
	// LastError, Result and CompletedAt are written; its submission fields
	// (type, data, maxRetries, …) only when the task must be created.
	Task
	// Attempt is the retryCount of the attempt being settled.
	Attempt int
}

// SaveTaskOutcomes records attempt outcomes with one unordered bulk write
// and returns how many it wrote. An outcome is written only while the
// stored task is still at that attempt and has not ended (completed or
// dead_letter), so a redelivered attempt never overwrites a later one. A
// task that does not exist yet is created from the outcome.
func (s *Store) SaveTaskOutcomes(ctx context.Context, outcomes ...TaskOutcome) (int, error) {
	now := s.now()
	// A duplicate key is an upsert that found the task past this attempt.
	return upsertForward(ctx, s.tasks, "task outcomes", outcomes, func(o TaskOutcome) (bson.D, bson.M, error) {
		if o.TaskID == "" {
			return nil, nil, errors.New("store: task outcome needs taskId")
		}
		return bson.D{
			{Key: "_id", Value: o.TaskID},
			{Key: "retryCount", Value: o.Attempt},
			{Key: "status", Value: bson.M{"$in": taskstatus.Unfinished()}},
		}, outcomeUpdate(o, now), nil
	})
}

func outcomeUpdate(o TaskOutcome, now time.Time) bson.M {
	set := bson.M{"status": o.Status, "retryCount": o.RetryCount, "updatedAt": now}
	unset := bson.M{}
	optional := func(field string, v any, present bool) { setOrUnset(set, unset, field, v, present) }
	var next, completed any
	if o.NextRetryAt != nil {
		next = bsonTime(*o.NextRetryAt)
	}
	if o.CompletedAt != nil {
		completed = bsonTime(*o.CompletedAt)
	}
	optional("nextRetryAt", next, o.NextRetryAt != nil)
	optional("completedAt", completed, o.CompletedAt != nil)
	optional("lastError", o.LastError, o.LastError != nil)
	optional("result", o.Result, len(o.Result) > 0)

	onInsert := bson.M{
		"taskId":     o.TaskID,
		"type":       o.Type,
		"data":       o.Data,
		"maxRetries": o.MaxRetries,
		"eventId":    o.EventID,
		"createdAt":  bsonTime(o.CreatedAt),
	}
	setOrigin(onInsert, o.CorrelationID, o.WebhookEventID, o.PartnerID)
	update := bson.M{"$set": set, "$setOnInsert": onInsert}
	if len(unset) > 0 {
		update["$unset"] = unset
	}
	return update
}

// DueTaskRetries returns up to limit failed tasks whose nextRetryAt is at
// or before now, soonest first: the retries the retry-sweeper re-emits.
func (s *Store) DueTaskRetries(ctx context.Context, now time.Time, limit int) ([]Task, error) {
	cur, err := s.tasks.Find(ctx,
		bson.M{"status": taskstatus.Failed, "nextRetryAt": bson.M{"$lte": bsonTime(now)}},
		options.Find().SetSort(bson.D{{Key: "nextRetryAt", Value: 1}, {Key: "_id", Value: 1}}).SetLimit(int64(limit)))
	if err != nil {
		return nil, normalise(err)
	}
	var out []Task
	if err := cur.All(ctx, &out); err != nil {
		return nil, normalise(err)
	}
	return out, nil
}

// TaskAttempt names one attempt of a task: its retryCount.
type TaskAttempt struct {
	TaskID     string
	RetryCount int
}

// MarkTaskRetriesEmitted records, with one bulk write, that the retries of
// failed tasks (their task.created with these retryCounts) were emitted:
// each task is pending again and has no nextRetryAt, so the sweeper does not
// emit it twice. Only a task still failed at that retryCount changes (the
// processor may already have run the retry); it returns how many did.
func (s *Store) MarkTaskRetriesEmitted(ctx context.Context, attempts ...TaskAttempt) (int, error) {
	if len(attempts) == 0 {
		return 0, nil
	}
	now := s.now()
	models := make([]mongo.WriteModel, len(attempts))
	for i, a := range attempts {
		models[i] = mongo.NewUpdateOneModel().
			SetFilter(bson.M{"_id": a.TaskID, "status": taskstatus.Failed, "retryCount": a.RetryCount}).
			SetUpdate(bson.M{"$set": bson.M{"status": taskstatus.Pending, "updatedAt": now}, "$unset": bson.M{"nextRetryAt": ""}})
	}
	res, err := s.tasks.BulkWrite(ctx, models, options.BulkWrite().SetOrdered(false))
	if err != nil {
		return 0, fmt.Errorf("store: mark task retries emitted: %w", err)
	}
	return int(res.ModifiedCount), nil
}
