package submit

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/store"
)

// Creator stores new workflows and tasks; *store.Store implements it.
type Creator interface {
	CreateWorkflow(ctx context.Context, wf store.Workflow) (store.Workflow, error)
	CreateTask(ctx context.Context, t store.Task) (store.Task, error)
}

// Origin is who asks for a new workflow or task and the ids it gets: the
// one thing that differs between an API submission and a webhook route.
type Origin struct {
	// ID is the workflow or task id.
	ID string
	// EventID is the id of its *.created event.
	EventID string
	// At is its createdAt.
	At events.Time
	// Metadata is the *.created event's metadata; its TraceID and
	// CorrelationID are stored on the workflow or task, for every later
	// event of it to carry, and so is a workflow's Attempt (a webhook
	// event's new attempt: every event of its run says which).
	Metadata *events.Metadata
	// WebhookEventID names the webhook event that started it, if one did
	// (then also Metadata.CorrelationID).
	WebhookEventID string
	// IdempotencyKey and RequestHash identify an API submission, so a
	// retried one finds the first.
	IdempotencyKey, RequestHash string
	// Fits, when set, refuses the *.created event before anything is
	// stored: one the brokers could never carry (emit.Emitter.CheckSize),
	// with the error the caller's clients understand.
	Fits func(events.Envelope) error
}

// Creation is a workflow or task built and checked but not stored yet:
// its *.created event and its pending projection (one of Workflow, Task).
// A caller that writes other documents beside it stores it with Store.
type Creation struct {
	Event    events.Envelope
	Workflow *store.Workflow
	Task     *store.Task
}

// NewWorkflow builds the workflow.created of p (with o's id and
// createdAt), validated against the catalog, and the pending workflow it
// creates, storing nothing.
func NewWorkflow(o Origin, p events.WorkflowCreatedPayload) (Creation, error) {
	p.WorkflowID, p.CreatedAt = o.ID, o.At
	env, err := o.event(p)
	if err != nil {
		return Creation{Event: env}, err
	}
	return Creation{Event: env, Workflow: &store.Workflow{
		WorkflowID: p.WorkflowID, Name: p.Name, Steps: p.Steps, Priority: string(p.Priority), Input: store.JSONDoc(p.Input),
		EventID: env.EventID, CorrelationID: o.Metadata.CorrelationID, TraceID: o.Metadata.TraceID, WebhookEventID: o.WebhookEventID, PartnerID: o.Metadata.PartnerID,
		UserID: o.Metadata.UserID.Value, IdempotencyKey: o.IdempotencyKey, RequestHash: o.RequestHash, CreatedAt: o.At.Time,
		Attempt: o.Metadata.Attempt,
	}}, nil
}

// NewTask builds the task.created of p (with o's id and createdAt,
// retryCount 0), validated against the catalog, and the pending task it
// creates, storing nothing.
func NewTask(o Origin, p events.TaskCreatedPayload) (Creation, error) {
	p.TaskID, p.CreatedAt, p.RetryCount = o.ID, o.At, 0
	env, err := o.event(p)
	if err != nil {
		return Creation{Event: env}, err
	}
	return Creation{Event: env, Task: &store.Task{
		TaskID: p.TaskID, Type: string(p.Type), Data: store.JSONDoc(p.Data), MaxRetries: p.MaxRetries,
		EventID: env.EventID, CorrelationID: o.Metadata.CorrelationID, TraceID: o.Metadata.TraceID, WebhookEventID: o.WebhookEventID, PartnerID: o.Metadata.PartnerID,
		UserID: o.Metadata.UserID.Value, IdempotencyKey: o.IdempotencyKey, RequestHash: o.RequestHash, CreatedAt: o.At.Time,
	}}, nil
}

// ID is the workflow or task id of c.
func (c *Creation) ID() string {
	if c.Workflow != nil {
		return c.Workflow.WorkflowID
	}
	if c.Task != nil {
		return c.Task.TaskID
	}
	return ""
}

// Store stores the pending projection, in one command. When it was stored
// before, the error wraps store.ErrDuplicate and the stored one replaces
// c's.
func (c *Creation) Store(ctx context.Context, st Creator) error {
	var err error
	switch {
	case c.Workflow != nil:
		c.Workflow, err = create(ctx, "workflow", *c.Workflow, st.CreateWorkflow)
	case c.Task != nil:
		c.Task, err = create(ctx, "task", *c.Task, st.CreateTask)
	}
	return err
}

// create stores doc, a pending projection of kind, with createDoc, and
// returns what is stored: doc, or the one stored before (a duplicate).
func create[T any](ctx context.Context, kind string, doc T, createDoc func(context.Context, T) (T, error)) (*T, error) {
	stored, err := createDoc(ctx, doc)
	if err != nil {
		err = fmt.Errorf("store %s: %w", kind, err)
	}
	return &stored, err
}

// submission is what a retried API submission compares and answers
// with: the projection's request hash, createdAt, *.created event id,
// trace and correlation id.
func (c *Creation) submission() (requestHash string, createdAt time.Time, eventID, traceID, correlationID string) {
	if c.Workflow != nil {
		w := c.Workflow
		return w.RequestHash, w.CreatedAt, w.EventID, w.TraceID, w.CorrelationID
	}
	t := c.Task
	return t.RequestHash, t.CreatedAt, t.EventID, t.TraceID, t.CorrelationID
}

// event builds the validated *.created event of p with o's event id.
func (o Origin) event(p events.Payload) (events.Envelope, error) {
	env, err := events.NewEventAt(p, o.Metadata, o.EventID, events.Now())
	if err != nil {
		return env, fmt.Errorf("build %s: %w", p.EventType(), err)
	}
	if o.Fits != nil {
		if err := o.Fits(env); err != nil {
			return env, err
		}
	}
	return env, nil
}

// replayed is the first attempt's *.created event for a retried
// submission: same id, createdAt, trace and correlation id, so storing it
// again is a duplicate and publishing it again continues the first
// attempt's trace.
func replayed(env events.Envelope, createdAt time.Time, eventID, traceID, correlationID string) events.Envelope {
	var payload map[string]json.RawMessage
	if json.Unmarshal(env.Payload, &payload) == nil {
		at, _ := json.Marshal(events.At(createdAt))
		payload["createdAt"] = at
		env.Payload, _ = json.Marshal(payload)
	}
	env.EventID, env.Timestamp = eventID, events.At(createdAt)
	md := *env.Metadata
	if traceID != "" { // stored before issue 26: the retry's own trace
		md.TraceID, md.CorrelationID = traceID, correlationID
	}
	env.Metadata = &md
	return env
}
