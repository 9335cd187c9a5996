package task

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"slices"
	"sync"
	"time"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/backoff"
	"github.com/streamops/streamops/internal/bus"
	"github.com/streamops/streamops/internal/deadline"
	"github.com/streamops/streamops/internal/emit"
	"github.com/streamops/streamops/internal/metrics"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/stream"
)

// StateStore is what the processor reads and writes besides events;
// *store.Store implements it.
type StateStore interface {
	GetTasks(ctx context.Context, taskIDs []string) (map[string]store.Task, error)
	SaveTaskOutcomes(ctx context.Context, outcomes ...store.TaskOutcome) (int, error)
	SettleWebhookEvents(ctx context.Context, outcomes ...store.WebhookOutcome) (int, error)
}

// Emitter stores then publishes events; *emit.Emitter implements it.
type Emitter interface {
	Emit(ctx context.Context, envs ...events.Envelope) (emit.Result, error)
}

// Source is metadata.source of the events the processors emit (seed 003).
const Source = "event-processor"

// Config wires a Service.
type Config struct {
	// Store holds the task projections. Required.
	Store StateStore
	// Emitter stores then publishes the lifecycle events. Required.
	Emitter Emitter
	// Executors run tasks by type. Required; a type without one is
	// dead-lettered (UNKNOWN_TASK_TYPE).
	Executors Executors
	// Backoff spaces retries. Default DefaultBackoff.
	Backoff backoff.Policy
	// ProcessorID is metadata.processorId of the emitted events. Default
	// "event-processor".
	ProcessorID string
	// DeadlineMargin is how close to the invocation's deadline the
	// processor stops starting attempts and fails the batch so the rest is
	// delivered again. Default 5 s.
	DeadlineMargin time.Duration
	// Now is the clock of timestamps, durations and nextRetryAt. Default
	// time.Now.
	Now func() time.Time
	// Logger receives structured logs. Default slog.Default().
	Logger *slog.Logger
	// Metrics receives TasksCompleted, TasksFailed and TasksDeadLettered
	// per batch. Default: none.
	Metrics *metrics.Recorder
}

func (c *Config) setDefaults() {
	if c.Backoff == nil {
		c.Backoff = DefaultBackoff
	}
	if c.ProcessorID == "" {
		c.ProcessorID = Source
	}
	if c.DeadlineMargin == 0 {
		c.DeadlineMargin = 5 * time.Second
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
}

// Validate reports the first missing or bad field.
func (c Config) Validate() error {
	switch {
	case c.Store == nil:
		return errors.New("task: Config.Store is required")
	case c.Emitter == nil:
		return errors.New("task: Config.Emitter is required")
	case len(c.Executors) == 0:
		return errors.New("task: Config.Executors is required")
	case c.DeadlineMargin < 0:
		return errors.New("task: Config.DeadlineMargin must not be negative")
	}
	return nil
}

// Service runs task attempts; it is the task-processor's stream.Handler.
// Safe for concurrent use.
type Service struct{ cfg Config }

// New returns a Service.
func New(cfg Config) (*Service, error) {
	cfg.setDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Service{cfg: cfg}, nil
}

// Accepts is task.created, first attempts and retries alike: every other
// event of the tasks topic is a lifecycle event the processor emitted.
func (s *Service) Accepts() []events.Type { return []events.Type{events.TaskCreated} }

type item struct {
	msg     bus.Message
	payload events.TaskCreatedPayload
}

// state is one task during a batch.
type state struct {
	mu      sync.Mutex
	task    store.Task
	stored  int // retryCount as loaded: the outcome's guard
	dirty   bool
	events  []events.Envelope
	webhook *store.WebhookOutcome
}

// HandleBatch runs the attempts a batch of task.created asks for; see the
// package documentation.
func (s *Service) HandleBatch(ctx context.Context, b *stream.Batch) error {
	parts := make([][]item, 0, len(b.Partitions))
	var ids []string
	for _, p := range b.Partitions {
		var items []item
		for _, m := range p.Messages {
			payload, err := events.PayloadAs[events.TaskCreatedPayload](m.Envelope)
			if err != nil {
				b.DeadLetter(m, bus.ReasonProcessingFailed, err)
				continue
			}
			items = append(items, item{m, payload})
			ids = append(ids, payload.TaskID)
		}
		parts = append(parts, items)
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	stored, err := s.cfg.Store.GetTasks(ctx, ids)
	if err != nil {
		return err
	}
	states := make(map[string]*state, len(ids))
	for _, items := range parts {
		for _, it := range items {
			if states[it.payload.TaskID] == nil {
				t, ok := stored[it.payload.TaskID]
				if !ok {
					t = fromEvent(it)
					s.cfg.Logger.WarnContext(ctx, "task has no projection; creating it from its event", "taskId", t.TaskID, "eventId", it.msg.Envelope.EventID)
				}
				states[t.TaskID] = &state{task: t, stored: t.RetryCount}
			}
		}
	}

	runErr := stream.ForEachPartition(ctx, parts, func(ctx context.Context, items []item) error {
		for _, it := range items {
			if err := s.attempt(ctx, b, states[it.payload.TaskID], it); err != nil {
				return err // the invocation is ending: the rest is delivered again
			}
		}
		return nil
	})

	var touched []*state
	seen := map[*state]bool{}
	for _, items := range parts {
		for _, it := range items {
			if st := states[it.payload.TaskID]; st.dirty && !seen[st] {
				seen[st] = true
				touched = append(touched, st)
			}
		}
	}
	return errors.Join(runErr, s.flush(ctx, b, touched))
}

// fromEvent is the projection of a task whose producer stored its
// task.created but not the projection.
func fromEvent(it item) store.Task {
	p, env := it.payload, it.msg.Envelope
	t := store.Task{
		ID: p.TaskID, TaskID: p.TaskID, Type: string(p.Type), Data: store.JSONDoc(p.Data), Status: store.TaskPending,
		RetryCount: p.RetryCount, MaxRetries: p.MaxRetries, EventID: env.EventID, CreatedAt: p.CreatedAt.Time,
	}
	if md := env.Metadata; md != nil {
		t.CorrelationID, t.PartnerID = md.CorrelationID, md.PartnerID
		if md.Source == "webhook" {
			t.WebhookEventID = md.CorrelationID
		}
	}
	return t
}

// attempt runs one task.created as its attempt, when the task is at that
// attempt, and records the outcome in st. It returns an error only when the
// invocation is ending.
func (s *Service) attempt(ctx context.Context, b *stream.Batch, st *state, it item) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	t, p := &st.task, it.payload
	log := s.cfg.Logger.With("taskId", t.TaskID, "retryCount", p.RetryCount, "eventId", it.msg.Envelope.EventID, "record", it.msg.String())
	switch {
	case t.Status == store.TaskCompleted || t.Status == store.TaskDeadLetter:
		log.InfoContext(ctx, "task already ended, skipping", "currentStatus", t.Status)
		return nil
	case p.RetryCount < t.RetryCount:
		log.InfoContext(ctx, "attempt already settled, skipping", "taskRetryCount", t.RetryCount)
		return nil
	case p.RetryCount > t.RetryCount:
		log.WarnContext(ctx, "attempt is ahead of the task's state, skipping", "taskRetryCount", t.RetryCount)
		return nil
	}
	if s.nearDeadline(ctx) {
		return ErrDeadline
	}

	meta := &events.Metadata{Source: Source, ProcessorID: s.cfg.ProcessorID, CorrelationID: t.CorrelationID, PartnerID: t.PartnerID}
	var evs []events.Envelope
	add := func(pl events.Payload, id string, at time.Time) error {
		env, err := events.NewEvent(pl, meta)
		if err != nil {
			return fmt.Errorf("task: build %s: %w", pl.EventType(), err)
		}
		env.EventID, env.Timestamp = id, events.At(at)
		evs = append(evs, env)
		return nil
	}

	start := s.now()
	if err := add(events.TaskProcessingPayload{TaskID: t.TaskID, StartedAt: events.At(start), RetryCount: p.RetryCount},
		attemptEventID(t.TaskID, events.TaskProcessing, p.RetryCount), start); err != nil {
		b.DeadLetter(it.msg, bus.ReasonProcessingFailed, err)
		return nil
	}
	res, err := s.execute(ctx, Attempt{
		TaskID: t.TaskID, Type: p.Type, Data: p.Data, RetryCount: p.RetryCount, MaxRetries: t.MaxRetries,
		CreatedAt: t.CreatedAt, StartedAt: start, CorrelationID: t.CorrelationID,
	})
	end := s.now()
	if err != nil && invocationEnded(ctx, err) {
		return err // not the task's fault: the attempt runs again on redelivery
	}

	next := *t
	var outcomeErr error
	var deadLetter bus.Reason
	switch {
	case err == nil:
		result, merr := json.Marshal(res)
		if merr != nil || res == nil {
			result = []byte("{}")
		}
		next.Status, next.CompletedAt, next.Result, next.LastError, next.NextRetryAt = store.TaskCompleted, &end, store.JSONDoc(result), nil, nil
		outcomeErr = add(events.TaskCompletedPayload{TaskID: t.TaskID, CompletedAt: events.At(end),
			Duration: end.Sub(start).Milliseconds(), Result: result}, endEventID(t.TaskID, events.TaskCompleted), end)
		if t.WebhookEventID != "" {
			st.webhook = &store.WebhookOutcome{EventID: t.WebhookEventID, Status: store.WebhookCompleted}
		}
		log.InfoContext(ctx, "task completed", "durationMs", end.Sub(start).Milliseconds())

	case IsRetryable(err) && p.RetryCount < t.MaxRetries:
		code, message, _ := describe(err)
		retryAt := end.Add(s.cfg.Backoff.Delay(p.RetryCount + 1)).Truncate(time.Millisecond)
		next.Status, next.RetryCount, next.NextRetryAt = store.TaskFailed, p.RetryCount+1, &retryAt
		next.LastError = &events.TaskError{Code: code, Message: message, Retryable: true}
		outcomeErr = add(events.TaskFailedPayload{TaskID: t.TaskID, FailedAt: events.At(end), RetryCount: next.RetryCount,
			MaxRetries: t.MaxRetries, Error: *next.LastError, NextRetryAt: events.At(retryAt)},
			attemptEventID(t.TaskID, events.TaskFailed, p.RetryCount), end)
		log.WarnContext(ctx, "task failed; retry scheduled", "code", code, "error", message, "nextRetryAt", retryAt)

	default:
		code, message, stack := describe(err)
		retryable := IsRetryable(err)
		next.Status, next.NextRetryAt = store.TaskDeadLetter, nil
		next.LastError = &events.TaskError{Code: code, Message: message, Retryable: retryable}
		outcomeErr = add(events.TaskDeadLetterPayload{TaskID: t.TaskID,
			OriginalEvent: events.OriginalEvent{EventType: events.TaskCreated, Payload: it.msg.Envelope.Payload},
			RetryCount:    p.RetryCount, MaxRetries: t.MaxRetries,
			FinalError:     events.FinalError{Code: code, Message: message, Stack: stack},
			DeadLetteredAt: events.At(end)}, endEventID(t.TaskID, events.TaskDeadLetter), end)
		deadLetter = bus.ReasonProcessingFailed
		if retryable {
			deadLetter = bus.ReasonRetriesExhausted
		}
		if t.WebhookEventID != "" {
			st.webhook = &store.WebhookOutcome{EventID: t.WebhookEventID, Status: store.WebhookFailed,
				Error: fmt.Sprintf("task %s dead-lettered: %s", t.TaskID, message)}
		}
		log.ErrorContext(ctx, "task dead-lettered", "code", code, "error", message, "retryable", retryable)
	}
	if outcomeErr != nil {
		b.DeadLetter(it.msg, bus.ReasonProcessingFailed, outcomeErr)
		return nil
	}
	if deadLetter != "" {
		b.DeadLetter(it.msg, deadLetter, err)
	}
	st.task, st.dirty = next, true
	st.events = append(st.events, evs...)
	return nil
}

// execute runs the task's executor, turning a panic or an unknown type into
// a permanent failure.
func (s *Service) execute(ctx context.Context, a Attempt) (res Result, err error) {
	x, ok := s.cfg.Executors[a.Type]
	if !ok {
		return nil, Permanent(CodeUnknownType, "no executor for task type %q", a.Type)
	}
	defer func() {
		if r := recover(); r != nil {
			res, err = nil, &Error{Code: CodePanic, Message: fmt.Sprintf("%s executor panicked: %v", a.Type, r), stack: string(debug.Stack())}
		}
	}()
	return x.Execute(ctx, a)
}

// flush writes the batch's outcomes: every event with one Emit, then the
// dead letters (so a task is never dead_letter without its dead letter),
// webhook outcomes, and last the task outcomes with one bulk write. A
// failure fails the batch; the redelivery writes duplicates of what was
// already written.
func (s *Service) flush(ctx context.Context, b *stream.Batch, touched []*state) error {
	var evs []events.Envelope
	var hooks []store.WebhookOutcome
	outcomes := make([]store.TaskOutcome, 0, len(touched))
	var completed, failed, dead int
	for _, st := range touched {
		evs = append(evs, st.events...)
		if st.webhook != nil {
			hooks = append(hooks, *st.webhook)
		}
		outcomes = append(outcomes, store.TaskOutcome{Task: st.task, Attempt: st.stored})
		switch st.task.Status {
		case store.TaskCompleted:
			completed++
		case store.TaskFailed:
			failed++
		case store.TaskDeadLetter:
			dead++
		}
	}
	if len(evs) > 0 {
		if _, err := s.cfg.Emitter.Emit(ctx, evs...); err != nil {
			return fmt.Errorf("task: %w", err)
		}
	}
	if err := b.FlushDeadLetters(ctx); err != nil {
		return fmt.Errorf("task: %w", err)
	}
	if _, err := s.cfg.Store.SettleWebhookEvents(ctx, hooks...); err != nil {
		return fmt.Errorf("task: %w", err)
	}
	if _, err := s.cfg.Store.SaveTaskOutcomes(ctx, outcomes...); err != nil {
		return fmt.Errorf("task: %w", err)
	}
	s.cfg.Metrics.Record(
		metrics.Metric{Name: "TasksCompleted", Unit: metrics.Count, Value: float64(completed)},
		metrics.Metric{Name: "TasksFailed", Unit: metrics.Count, Value: float64(failed)},
		metrics.Metric{Name: "TasksDeadLettered", Unit: metrics.Count, Value: float64(dead)},
	)
	return nil
}

func (s *Service) now() time.Time { return s.cfg.Now().UTC().Truncate(time.Millisecond) }

// nearDeadline reports whether the invocation is ending or its deadline is
// within DeadlineMargin.
func (s *Service) nearDeadline(ctx context.Context) bool {
	return !deadline.Left(ctx, s.cfg.DeadlineMargin)
}
