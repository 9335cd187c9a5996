package store

import (
	"context"
	"errors"
	"time"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/mongo/options"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/status"
)

// Task is the current state of a task (the tasks collection, a projection
// of its events). Field names follow seed 003's payloads.
type Task struct {
	ID         string  `bson:"_id" json:"-"`
	TaskID     string  `bson:"taskId" json:"taskId"`
	Type       string  `bson:"type" json:"type"`
	Data       JSONDoc `bson:"data" json:"data"`
	Status     string  `bson:"status" json:"status"`
	RetryCount int     `bson:"retryCount" json:"retryCount"`
	MaxRetries int     `bson:"maxRetries" json:"maxRetries"`
	// NextRetryAt is when a failed task's retry is due: the processor runs
	// it from then, and the retry-sweeper redelivers its task.failed.
	NextRetryAt *time.Time        `bson:"nextRetryAt,omitempty" json:"nextRetryAt,omitempty"`
	LastError   *events.TaskError `bson:"lastError,omitempty" json:"lastError,omitempty"`
	Result      JSONDoc           `bson:"result,omitempty" json:"result,omitempty"`
	// EventID is the task.created event that started it.
	EventID        string `bson:"eventId" json:"eventId"`
	CorrelationID  string `bson:"correlationId,omitempty" json:"correlationId,omitempty"`
	WebhookEventID string `bson:"webhookEventId,omitempty" json:"webhookEventId,omitempty"`
	// TraceID is the W3C trace id of the request that started it; every
	// event of it carries it as metadata.traceId, retries too.
	TraceID string `bson:"traceId,omitempty" json:"traceId,omitempty"`
	// PartnerID is the provider or partner whose webhook started it; its
	// events carry it as metadata.partnerId.
	PartnerID string `bson:"partnerId,omitempty" json:"partnerId,omitempty"`
	// UserID is the principal whose request started it (an API
	// submission, a webhook event's retry); its events carry it as
	// metadata.userId. Empty for a webhook delivery's.
	UserID         string     `bson:"userId,omitempty" json:"userId,omitempty"`
	IdempotencyKey string     `bson:"idempotencyKey,omitempty" json:"-"`
	RequestHash    string     `bson:"requestHash,omitempty" json:"-"`
	CreatedAt      time.Time  `bson:"createdAt" json:"createdAt"`
	UpdatedAt      time.Time  `bson:"updatedAt" json:"updatedAt"`
	CompletedAt    *time.Time `bson:"completedAt,omitempty" json:"completedAt,omitempty"`
	// EndedAt is when the task completed or was dead-lettered, set by
	// the outcome that ended it: the idx_ended_ttl index deletes the task
	// Config.Retention.Tasks after it. Absent while it can still move on.
	EndedAt *time.Time `bson:"endedAt,omitempty" json:"-"`
}

// CreateTask stores a new task as pending. A task with the same taskId
// already stored is returned with ErrDuplicate, unchanged.
func (s *Store) CreateTask(ctx context.Context, t Task) (Task, error) {
	t, err := pendingTask(t, s.now())
	if err != nil {
		return Task{}, err
	}
	got, err := insertOrGet(ctx, s.tasks, t, bson.M{"_id": t.ID})
	return got, inField("data", err)
}

// pendingTask is t as a new task is stored: _id its taskId, status
// pending, createdAt (now when unset) and updatedAt stamped.
func pendingTask(t Task, now time.Time) (Task, error) {
	if t.TaskID == "" {
		return Task{}, errors.New("store: task needs taskId")
	}
	t.ID, t.Status = t.TaskID, status.TaskPending
	stampCreated(&t.CreatedAt, &t.UpdatedAt, now)
	return t, nil
}

// GetTask loads a task by taskId.
func (s *Store) GetTask(ctx context.Context, taskID string) (Task, error) {
	return getByID[Task](ctx, s.tasks, taskID)
}

// GetTasks loads tasks by taskId with one query; tasks that do not exist
// are absent from the map.
func (s *Store) GetTasks(ctx context.Context, taskIDs []string) (map[string]Task, error) {
	return findByIDs(ctx, s.tasks, "tasks", taskIDs, func(t Task) string { return t.ID })
}

// InsertTasks stores new pending tasks with one unordered bulk insert (the
// tasks a batch of workflows starts). Tasks stored before are reported in
// Duplicates and left as they were.
func (s *Store) InsertTasks(ctx context.Context, tasks ...Task) (InsertResult, error) {
	now := s.now()
	return insertAll(ctx, s.tasks, "tasks", inOneWrite, tasks, func(t Task) (string, any, error) {
		t, err := pendingTask(t, now)
		return t.ID, t, err
	})
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
	return upsertForward(ctx, s.tasks, "task outcomes", outcomes, func(o TaskOutcome) (string, bson.D, bson.M) {
		return o.TaskID, bson.D{
			{Key: "retryCount", Value: o.Attempt},
			{Key: "status", Value: bson.M{"$in": status.TaskUnfinished()}},
		}, outcomeUpdate(o, now)
	})
}

func outcomeUpdate(o TaskOutcome, now time.Time) bson.M {
	set := bson.M{"status": o.Status, "retryCount": o.RetryCount, "updatedAt": now}
	if status.TaskIsFinal(o.Status) {
		set["endedAt"] = now
	}
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
	setOrigin(onInsert, origin{o.CorrelationID, o.WebhookEventID, o.PartnerID, o.UserID, o.TraceID})
	update := bson.M{"$set": set, "$setOnInsert": onInsert}
	if len(unset) > 0 {
		update["$unset"] = unset
	}
	return update
}

// DueTaskRetries returns up to limit failed tasks whose nextRetryAt is at
// or before now, soonest first: the retries the retry-sweeper redelivers.
func (s *Store) DueTaskRetries(ctx context.Context, now time.Time, limit int) ([]Task, error) {
	return findAll[Task](ctx, s.tasks,
		bson.M{"status": status.TaskFailed, "nextRetryAt": bson.M{"$lte": bsonTime(now)}},
		options.Find().SetSort(bson.D{{Key: "nextRetryAt", Value: 1}, {Key: "_id", Value: 1}}).SetLimit(int64(limit)))
}

// TaskAttempt names one attempt of a task: its retryCount.
type TaskAttempt struct {
	TaskID     string
	RetryCount int
}

// MarkTaskRetriesRedelivered records, with one bulk write, that the retries
// of failed tasks (the task.failed that scheduled each of these
// retryCounts) were published again: each task is pending at that
// retryCount with no nextRetryAt, so the sweeper does not redeliver it
// twice, and a redelivery that gets lost is stalled work the sweeper drives
// again. Only a task still failed at that retryCount changes (the processor
// may already have run the retry); it returns how many did.
func (s *Store) MarkTaskRetriesRedelivered(ctx context.Context, attempts ...TaskAttempt) (int, error) {
	now := s.now()
	res, err := writeEach(ctx, s.tasks, "mark task retries redelivered", attempts, func(a TaskAttempt) (mongo.WriteModel, error) {
		return mongo.NewUpdateOneModel().
			SetFilter(bson.M{"_id": a.TaskID, "status": status.TaskFailed, "retryCount": a.RetryCount}).
			SetUpdate(bson.M{"$set": bson.M{"status": status.TaskPending, "updatedAt": now}, "$unset": bson.M{"nextRetryAt": ""}}), nil
	})
	if err != nil {
		return 0, err
	}
	return int(res.ModifiedCount), nil
}
