package store

import (
	"context"
	"errors"
	"time"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/task/taskstatus"
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
	// NextRetryAt is when the retry-sweeper re-emits a failed task.
	NextRetryAt *time.Time        `bson:"nextRetryAt,omitempty" json:"nextRetryAt,omitempty"`
	LastError   *events.TaskError `bson:"lastError,omitempty" json:"lastError,omitempty"`
	Result      JSONDoc           `bson:"result,omitempty" json:"result,omitempty"`
	// EventID is the task.created event that started it.
	EventID        string `bson:"eventId" json:"eventId"`
	CorrelationID  string `bson:"correlationId,omitempty" json:"correlationId,omitempty"`
	WebhookEventID string `bson:"webhookEventId,omitempty" json:"webhookEventId,omitempty"`
	// PartnerID is the provider or partner whose webhook started it; its
	// events carry it as metadata.partnerId.
	PartnerID      string     `bson:"partnerId,omitempty" json:"partnerId,omitempty"`
	IdempotencyKey string     `bson:"idempotencyKey,omitempty" json:"-"`
	RequestHash    string     `bson:"requestHash,omitempty" json:"-"`
	CreatedAt      time.Time  `bson:"createdAt" json:"createdAt"`
	UpdatedAt      time.Time  `bson:"updatedAt" json:"updatedAt"`
	CompletedAt    *time.Time `bson:"completedAt,omitempty" json:"completedAt,omitempty"`
}

// CreateTask stores a new task as pending. A task with the same taskId
// already stored is returned with ErrDuplicate, unchanged.
func (s *Store) CreateTask(ctx context.Context, t Task) (Task, error) {
	if t.TaskID == "" {
		return Task{}, errors.New("store: task needs taskId")
	}
	now := s.now()
	t.ID, t.Status = t.TaskID, taskstatus.Pending
	stampCreated(&t.CreatedAt, &t.UpdatedAt, now)
	got, err := insertOrGet(ctx, s.tasks, t.ID, t)
	return got, inField("data", err)
}

// GetTask loads a task by taskId.
func (s *Store) GetTask(ctx context.Context, taskID string) (Task, error) {
	return getByID[Task](ctx, s.tasks, taskID)
}
