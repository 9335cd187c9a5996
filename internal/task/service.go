package task

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"time"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/backoff"
	"github.com/streamops/streamops/internal/fault"
	"github.com/streamops/streamops/internal/metrics"
	"github.com/streamops/streamops/internal/status"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/stream"
)

// StateStore is what the processor reads and writes besides the events
// it emits; *store.Store implements it.
type StateStore interface {
	// CommitStore stores the consumed events the history lacks and
	// settles webhook events (stream.Runtime.Commit).
	stream.CommitStore
	GetTasks(ctx context.Context, taskIDs []string) (map[string]store.Task, error)
	SaveTaskOutcomes(ctx context.Context, outcomes ...store.TaskOutcome) (int, error)
}

// Service runs task attempts: the task-processor's stream.Handler, the
// stream core around the task step. It acts on task.created (attempt 0)
// and task.failed (the retry it scheduled; see Retrier). Safe for
// concurrent use.
type Service = stream.Keyed[trigger, *state]

// New returns a Service.
func New(cfg Config) (*Service, error) {
	svc, err := stream.NewKeyed(events.TaskCreated, cfg, func(c Config) stream.Aggregates[trigger, *state] { return tasks{c} })
	if err != nil {
		return nil, err
	}
	svc.Also = []events.Type{events.TaskFailed}
	return svc, nil
}

// trigger is what the processor reads of a task.created or a task.failed:
// the task, and the attempt the event asks to run (its retryCount: 0 for
// a task.created, the retry a task.failed scheduled). What the attempt
// runs comes from the task's state, not from the event.
type trigger struct {
	TaskID     string `json:"taskId"`
	RetryCount int    `json:"retryCount"`
}

// Config wires a Service.
type Config struct {
	// Store holds the task projections. Required.
	Store StateStore
	// Executors run tasks by type. Required; a type without one is
	// dead-lettered (UNKNOWN_TASK_TYPE).
	Executors Executors
	// Backoff spaces retries. Default DefaultBackoff.
	Backoff backoff.Policy
	// Runtime is the processor's id, clock, deadline margin, logs and
	// metrics (TasksCompleted, TasksFailed and TasksDeadLettered per batch).
	stream.Runtime
}

// SetDefaults fills in the defaults of zero fields.
func (c *Config) SetDefaults() {
	if c.Backoff == nil {
		c.Backoff = DefaultBackoff
	}
	c.Runtime = c.Runtime.For("task")
}

// Validate reports the first missing or bad field.
func (c Config) Validate() error {
	switch {
	case c.Store == nil:
		return errors.New("task: Config.Store is required")
	case len(c.Executors) == 0:
		return errors.New("task: Config.Executors is required")
	}
	return c.Runtime.Validate()
}

// item is one task.created or task.failed of the batch.
type item = stream.Item[trigger]

// tasks is the task processor's domain step: the stream core's Aggregates
// over tasks.
type tasks struct{ cfg Config }

// state is one task during a batch.
type state struct {
	task   State
	stored int // retryCount as loaded: the outcome's guard
	// orphan is a task that has no projection, met first through a
	// task.failed, which cannot rebuild one: nothing of it runs.
	orphan bool
	stream.Outcome
}

// Key is the task an event runs.
func (tasks) Key(p trigger) string { return p.TaskID }

// Load reads the projections of the batch's tasks with one query.
func (s tasks) Load(ctx context.Context, ids []string) (map[string]*state, error) {
	return stream.LoadEach(ctx, ids, s.cfg.Store.GetTasks, func(t store.Task) *state {
		return &state{task: FromDocument(t), stored: t.RetryCount}
	})
}

// Rebuild is the projection of a task whose producer stored its
// task.created but not the projection. A task.failed cannot rebuild one
// (it lacks the submission): its state is unknown, and Step skips it.
func (s tasks) Rebuild(ctx context.Context, it item) *state {
	env := it.Msg.Envelope
	p, err := events.PayloadAs[events.TaskCreatedPayload](env)
	if err != nil {
		s.cfg.Logger.WarnContext(ctx, "task has no projection; its retry cannot run", "taskId", it.Payload.TaskID,
			"eventId", env.EventID, "eventType", env.EventType)
		return &state{task: State{ID: it.Payload.TaskID}, orphan: true}
	}
	t := State{
		ID: p.TaskID, Type: string(p.Type), Data: p.Data, Status: status.TaskPending,
		RetryCount: p.RetryCount, MaxRetries: p.MaxRetries, CreatedAt: p.CreatedAt.Time,
		Origin: stream.OriginOf(env, it.Msg.TraceID(ctx)),
	}
	s.cfg.Logger.WarnContext(ctx, "task has no projection; creating it from its event", "taskId", t.ID, "eventId", env.EventID)
	return &state{task: t, stored: t.RetryCount}
}

// Step runs the attempt a task.created or task.failed asks for; see
// attempt.
func (s tasks) Step(ctx context.Context, b *stream.Batch, st *state, it item) error {
	if st.task.TraceID == "" && !st.orphan {
		// Stored before traces were kept: its events carry the record's.
		st.task.TraceID = it.Msg.TraceID(ctx)
	}
	return s.attempt(ctx, b, st, it) // an error: the invocation is ending, the rest is delivered again
}

// attempt runs attempt it.Payload.RetryCount of its task when the task is
// at that attempt, has not ended and, if it failed, its retry is due; it
// records the outcome in st. Any other delivery (a duplicate, a stale
// redelivery, a retry not yet due) is acknowledged without running: a
// retry not yet due is run when the retry-sweeper redelivers its
// task.failed, so it never holds back its partition. It returns an error
// only when the invocation is ending.
func (s tasks) attempt(ctx context.Context, b *stream.Batch, st *state, it item) error {
	t, p := &st.task, it.Payload
	log := s.cfg.Logger.With("taskId", t.ID, "retryCount", p.RetryCount, "eventId", it.Msg.Envelope.EventID,
		"eventType", it.Msg.Envelope.EventType, "record", it.Msg.String())
	switch {
	case st.orphan:
		return nil // no projection to retry (Rebuild logged it)
	case t.Ended():
		log.InfoContext(ctx, "task already ended, skipping", "currentStatus", t.Status)
		return nil
	case p.RetryCount < t.RetryCount:
		log.InfoContext(ctx, "attempt already settled, skipping", "taskRetryCount", t.RetryCount)
		return nil
	case p.RetryCount > t.RetryCount:
		log.WarnContext(ctx, "attempt is ahead of the task's state, skipping", "taskRetryCount", t.RetryCount)
		return nil
	case t.RetryLater(s.cfg.Now()):
		log.InfoContext(ctx, "retry not due yet; the retry-sweeper redelivers it when it is", "nextRetryAt", *t.NextRetryAt)
		return nil
	}
	if s.cfg.NearDeadline(ctx) {
		return ErrDeadline
	}

	meta := s.cfg.Metadata(t.Origin)
	var evs []events.Envelope
	add := func(pl events.Payload, id string, at time.Time) error {
		env, err := s.cfg.Event(pl, id, at, meta)
		if err != nil {
			return err
		}
		evs = append(evs, env)
		return nil
	}

	start := s.cfg.Now()
	if err := add(events.TaskProcessingPayload{TaskID: t.ID, StartedAt: events.At(start), RetryCount: p.RetryCount},
		attemptEventID(t.ID, events.TaskProcessing, p.RetryCount), start); err != nil {
		b.DeadLetter(it.Msg, stream.ReasonProcessingFailed, err)
		return nil
	}
	res, err := s.execute(ctx, Attempt{
		TaskID: t.ID, Type: events.TaskType(t.Type), Data: t.Data, RetryCount: p.RetryCount, MaxRetries: t.MaxRetries,
		CreatedAt: t.CreatedAt, StartedAt: start, CorrelationID: t.CorrelationID,
	})
	end := s.cfg.Now()
	if err != nil && invocationEnded(ctx, err) {
		return err // not the task's fault: the attempt runs again on redelivery
	}

	next := *t
	var outcomeErr error
	var deadLetter stream.Reason
	switch {
	case err == nil:
		result, merr := json.Marshal(res)
		if merr != nil || res == nil {
			result = []byte("{}")
		}
		next.Complete(end, result)
		outcomeErr = add(events.TaskCompletedPayload{TaskID: t.ID, CompletedAt: events.At(end),
			Duration: end.Sub(start).Milliseconds(), Result: result}, endEventID(t.ID, events.TaskCompleted), end)
		if t.WebhookEventID != "" {
			st.Webhook = &store.WebhookOutcome{EventID: t.WebhookEventID, RunID: t.ID, Status: status.WebhookCompleted}
		}
		log.InfoContext(ctx, "task completed", "durationMs", end.Sub(start).Milliseconds())

	case t.MayRetry(err):
		code, message, _ := describe(err)
		retryAt := end.Add(s.cfg.Backoff.Delay(p.RetryCount + 1)).Truncate(time.Millisecond)
		next.ScheduleRetry(retryAt, events.TaskError{Code: code, Message: message, Retryable: true})
		outcomeErr = add(events.TaskFailedPayload{TaskID: t.ID, FailedAt: events.At(end), RetryCount: next.RetryCount,
			MaxRetries: t.MaxRetries, Error: *next.LastError, NextRetryAt: events.At(retryAt)},
			failedEventID(t.ID, next.RetryCount), end)
		log.WarnContext(ctx, "task failed; retry scheduled", "code", code, "error", message, "nextRetryAt", retryAt)

	default:
		code, message, stack := describe(err)
		retryable := fault.IsRetryable(err)
		next.DeadLetter(events.TaskError{Code: code, Message: message, Retryable: retryable})
		outcomeErr = add(events.TaskDeadLetterPayload{TaskID: t.ID,
			OriginalEvent: events.OriginalEvent{EventType: events.TaskCreated, Payload: submission(*t, it)},
			RetryCount:    p.RetryCount, MaxRetries: t.MaxRetries,
			FinalError:     events.FinalError{Code: code, Message: message, Stack: stack},
			DeadLetteredAt: events.At(end)}, endEventID(t.ID, events.TaskDeadLetter), end)
		deadLetter = stream.ReasonProcessingFailed
		if retryable {
			deadLetter = stream.ReasonRetriesExhausted
		}
		if t.WebhookEventID != "" {
			st.Webhook = &store.WebhookOutcome{EventID: t.WebhookEventID, RunID: t.ID, Status: status.WebhookFailed,
				Error: fmt.Sprintf("task %s dead-lettered: %s", t.ID, message)}
		}
		log.ErrorContext(ctx, "task dead-lettered", "code", code, "error", message, "retryable", retryable)
	}
	if outcomeErr != nil {
		b.DeadLetter(it.Msg, stream.ReasonProcessingFailed, outcomeErr)
		return nil
	}
	if deadLetter != "" {
		b.DeadLetter(it.Msg, deadLetter, err)
	}
	st.task = next
	st.Change()
	st.Events = append(st.Events, evs...)
	return nil
}

// submission is the payload of the task.created that submitted t, for
// its dead letter's originalEvent (seed 003): the record's own when it is
// that task.created, else rebuilt from the task's state, which keeps the
// submission (taskId, type, data, maxRetries, createdAt) as it arrived.
func submission(t State, it item) json.RawMessage {
	if it.Msg.Envelope.EventType == events.TaskCreated {
		return it.Msg.Envelope.Payload
	}
	p, err := json.Marshal(events.TaskCreatedPayload{TaskID: t.ID, Type: events.TaskType(t.Type), Data: t.Data,
		MaxRetries: t.MaxRetries, CreatedAt: events.At(t.CreatedAt)})
	if err != nil { // the stored data is JSON: only a corrupt document gets here
		p, _ = json.Marshal(map[string]string{"taskId": t.ID})
	}
	return p
}

// execute runs the task's executor, turning a panic or an unknown type into
// a permanent failure and an unclassified error into a retryable one.
func (s tasks) execute(ctx context.Context, a Attempt) (res Result, err error) {
	x, ok := s.cfg.Executors[a.Type]
	if !ok {
		return nil, fault.Permanent(CodeUnknownType, "no executor for task type %q", a.Type)
	}
	defer func() {
		if r := recover(); r != nil {
			res, err = nil, &fault.Error{Code: CodePanic, Message: fmt.Sprintf("%s executor panicked: %v", a.Type, r), Stack: string(debug.Stack())}
		}
	}()
	res, err = x.Execute(ctx, a)
	return res, unclassified(err)
}

// Flush writes the batch's outcomes: the consumed events the history
// lacks, the events, dead letters (so a task is never dead_letter without
// its dead letter) and webhook outcomes (stream.Runtime.Commit), and last
// the task outcomes with one bulk write.
// A failure fails the batch; the redelivery writes duplicates of what was
// already written.
func (s tasks) Flush(ctx context.Context, b *stream.Batch, touched []*state) error {
	outs := make([]*stream.Outcome, 0, len(touched))
	outcomes := make([]store.TaskOutcome, 0, len(touched))
	count := map[string]float64{}
	for _, st := range touched {
		outs = append(outs, &st.Outcome)
		outcomes = append(outcomes, st.task.outcome(st.stored))
		count[st.task.Status]++
	}
	if err := s.cfg.Commit(ctx, b, s.cfg.Store, outs); err != nil {
		return err
	}
	if _, err := s.cfg.Store.SaveTaskOutcomes(ctx, outcomes...); err != nil {
		return fmt.Errorf("task: %w", err)
	}
	s.cfg.Metrics.Record(
		metrics.Metric{Name: "TasksCompleted", Unit: metrics.Count, Value: count[status.TaskCompleted]},
		metrics.Metric{Name: "TasksFailed", Unit: metrics.Count, Value: count[status.TaskFailed]},
		metrics.Metric{Name: "TasksDeadLettered", Unit: metrics.Count, Value: count[status.TaskDeadLetter]},
	)
	return nil
}
