package submit

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/emit"
	"github.com/streamops/streamops/internal/status"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/tracing"
	"github.com/streamops/streamops/internal/vault"
)

// ErrIdempotencyConflict: the Idempotency-Key was used before for a
// different request (422).
var ErrIdempotencyConflict = errors.New("submit: idempotency key reused with a different request")

// ValidationError is a submission that breaks the catalog's rules or a
// limit: Field names the JSON field, Reason says what to fix (400). Err,
// when set, is the cause (a *bus.TooLargeError: 413).
type ValidationError struct {
	Field  string
	Reason string
	Err    error
}

func (e *ValidationError) Error() string { return fmt.Sprintf("%s: %s", e.Field, e.Reason) }

// Unwrap returns the cause, if any.
func (e *ValidationError) Unwrap() error { return e.Err }

// DefaultMaxRetries is a task's maxRetries when the request has none (seed
// 003's example value).
const DefaultMaxRetries = 3

// maxRetriesLimit bounds maxRetries: with the retry backoff capped at an
// hour, more would keep a failing task alive for days.
const maxRetriesLimit = 20

// WorkflowRequest is the body of POST /api/workflows.
type WorkflowRequest struct {
	Name     string          `json:"name"`
	Steps    []string        `json:"steps"`
	Priority string          `json:"priority"`
	Input    json.RawMessage `json:"input,omitempty"`
}

// TaskRequest is the body of POST /api/tasks.
type TaskRequest struct {
	Type       string          `json:"type"`
	Data       json.RawMessage `json:"data"`
	MaxRetries *int            `json:"maxRetries,omitempty"`
}

// WorkflowReceipt is the answer to a workflow submission.
type WorkflowReceipt struct {
	WorkflowID string `json:"workflowId"`
	Status     string `json:"status"`
	EventID    string `json:"eventId"`
	// TraceID is the workflow's trace: the request's, or the first
	// attempt's for a retried submission (the answer's X-Trace-Id).
	TraceID string `json:"-"`
}

// TaskReceipt is the answer to a task submission.
type TaskReceipt struct {
	TaskID  string `json:"taskId"`
	Status  string `json:"status"`
	EventID string `json:"eventId"`
	// TraceID is as WorkflowReceipt's.
	TraceID string `json:"-"`
}

// Trace is the trace id of the work the receipt answers for.
func (r WorkflowReceipt) Trace() string { return r.TraceID }

// Trace is the trace id of the work the receipt answers for.
func (r TaskReceipt) Trace() string { return r.TraceID }

// Service accepts submissions. Safe for concurrent use.
type Service struct {
	store   Creator
	emitter *emit.Emitter
	limits  Limits
	now     func() time.Time
	log     *slog.Logger
	vault   *vault.Vault
}

// WithVault returns s replacing the personal data of each submission's
// input or data by references into v before anything is stored; without
// one, submissions are stored as sent.
func (s *Service) WithVault(v *vault.Vault) *Service {
	c := *s
	c.vault = v
	return &c
}

// protect replaces the personal data of doc, a submission's input or
// data arriving at place ("api:workflows"); id, the workflow's or task's,
// names the subject of data seen without an email or phone number.
func (s *Service) protect(ctx context.Context, doc json.RawMessage, place, id string) (json.RawMessage, error) {
	if s.vault == nil || len(doc) == 0 {
		return doc, nil
	}
	out, err := s.vault.Protect(ctx, vault.Input{Doc: doc, Place: place, Key: id})
	if err != nil {
		return nil, fmt.Errorf("submit: protect personal data: %w", err)
	}
	return out, nil
}

// New returns a Service. The zero value of each of limits' fields is its
// default; limits must fit the emitter's Kafka record size (Limits.Validate).
// now and log may be nil (time.Now, slog.Default()).
func New(st Creator, em *emit.Emitter, limits Limits, now func() time.Time, log *slog.Logger) (*Service, error) {
	if st == nil || em == nil {
		return nil, errors.New("submit: store and emitter are required")
	}
	limits.setDefaults()
	if err := limits.Validate(em.MaxMessageBytes()); err != nil {
		return nil, err
	}
	if now == nil {
		now = time.Now
	}
	if log == nil {
		log = slog.Default()
	}
	return &Service{store: st, emitter: em, limits: limits, now: now, log: log}, nil
}

// Caller is who submits: the authenticated principal and the request's
// Idempotency-Key.
type Caller struct {
	// UserID is the principal (httpapi.Principal.ID): metadata.userId of
	// the *.created event and of every event of the execution it starts.
	// Empty: userId null, as seed 003's example.
	UserID string
	// IdempotencyKey, when set, makes a retried submission find the first.
	// A retry by another principal with the same key is
	// ErrIdempotencyConflict, never the first one's receipt.
	IdempotencyKey string
	// CorrelationID is metadata.correlationId of what the request starts
	// (httpapi: the X-Correlation-Id header, else API Gateway's request
	// id); stored on the workflow or task, so its every event carries it.
	CorrelationID string
}

// metadata is the *.created event's metadata for a submission of userID
// in trace traceID.
func metadata(userID, traceID, correlationID string) *events.Metadata {
	md := &events.Metadata{Source: "api-gateway", UserID: events.Null, APIVersion: events.SchemaVersion,
		TraceID: traceID, CorrelationID: correlationID}
	if userID != "" {
		md.UserID = events.String(userID)
	}
	return md
}

// EnsureTrace returns ctx, or, when ctx holds no trace (a caller outside
// an HTTP request or a record), ctx in a new span named name, so every
// event built in it carries metadata.traceId. end ends that span (a no-op
// when none was started).
func EnsureTrace(ctx context.Context, name string) (_ context.Context, end func()) {
	if tracing.TraceID(ctx) != "" {
		return ctx, func() {}
	}
	ctx, span := tracing.Start(ctx, name)
	return ctx, func() { span.End() }
}

// SubmitWorkflow validates and stores a workflow, then stores and publishes
// its workflow.created.
func (s *Service) SubmitWorkflow(ctx context.Context, req WorkflowRequest, by Caller) (WorkflowReceipt, error) {
	if err := s.limits.checkWorkflow(req); err != nil {
		return WorkflowReceipt{}, err
	}
	if err := validateWorkflow(req); err != nil {
		return WorkflowReceipt{}, err
	}
	ctx, end := EnsureTrace(ctx, "submit workflow")
	defer end()
	id := events.NewWorkflowID()
	if by.IdempotencyKey != "" {
		id = events.DeriveID(events.WorkflowIDPrefix, "idempotency", by.IdempotencyKey)
	}
	hash := RequestHash(req, by.UserID) // of the request as sent: a retry compares equal
	input, err := s.protect(ctx, req.Input, "api:workflows", id)
	if err != nil {
		return WorkflowReceipt{}, err
	}
	c, err := NewWorkflow(s.origin(ctx, id, events.WorkflowCreated, by, hash, "input"),
		events.WorkflowCreatedPayload{Name: req.Name, Steps: req.Steps, Priority: events.Priority(req.Priority), Input: input})
	env, err := s.create(ctx, c, err, by.IdempotencyKey)
	if err != nil {
		return WorkflowReceipt{}, err
	}
	s.log.InfoContext(ctx, "workflow submitted", "workflowId", id, "eventId", env.EventID, "steps", req.Steps)
	return WorkflowReceipt{WorkflowID: id, Status: status.WorkflowPending, EventID: env.EventID, TraceID: env.Metadata.TraceID}, nil
}

// SubmitTask validates and stores a task, then stores and publishes its
// task.created.
func (s *Service) SubmitTask(ctx context.Context, req TaskRequest, by Caller) (TaskReceipt, error) {
	if err := s.limits.checkTask(req); err != nil {
		return TaskReceipt{}, err
	}
	if err := validateTask(req); err != nil {
		return TaskReceipt{}, err
	}
	ctx, end := EnsureTrace(ctx, "submit task")
	defer end()
	maxRetries := DefaultMaxRetries
	if req.MaxRetries != nil {
		maxRetries = *req.MaxRetries
	}
	id := events.NewTaskID()
	if by.IdempotencyKey != "" {
		id = events.DeriveID(events.TaskIDPrefix, "idempotency", by.IdempotencyKey)
	}
	hash := RequestHash(req, by.UserID)
	data, err := s.protect(ctx, req.Data, "api:tasks", id)
	if err != nil {
		return TaskReceipt{}, err
	}
	c, err := NewTask(s.origin(ctx, id, events.TaskCreated, by, hash, "data"),
		events.TaskCreatedPayload{Type: events.TaskType(req.Type), Data: data, MaxRetries: maxRetries})
	env, err := s.create(ctx, c, err, by.IdempotencyKey)
	if err != nil {
		return TaskReceipt{}, err
	}
	s.log.InfoContext(ctx, "task submitted", "taskId", id, "eventId", env.EventID, "type", req.Type)
	return TaskReceipt{TaskID: id, Status: status.TaskPending, EventID: env.EventID, TraceID: env.Metadata.TraceID}, nil
}

// create stores c, which NewWorkflow or NewTask built (buildErr, their
// error), and emits its *.created event, which it returns. A submission
// retried with the same idempotencyKey finds the first one stored: the
// same request answers with the first one's event, a different one is
// ErrIdempotencyConflict.
func (s *Service) create(ctx context.Context, c Creation, buildErr error, idempotencyKey string) (events.Envelope, error) {
	if buildErr != nil {
		return events.Envelope{}, s.failed(buildErr)
	}
	hash, _, _, _, _ := c.submission()
	env := c.Event
	err := c.Store(ctx, s.store)
	switch {
	case errors.Is(err, store.ErrDuplicate):
		storedHash, createdAt, eventID, traceID, correlationID := c.submission()
		if storedHash != hash {
			return events.Envelope{}, fmt.Errorf("%w: key %q", ErrIdempotencyConflict, idempotencyKey)
		}
		env = replayed(env, createdAt, eventID, traceID, correlationID)
		// The event goes out again in the first attempt's trace.
		ctx = tracing.Resume(ctx, traceID, eventID)
	case err != nil:
		return events.Envelope{}, s.failed(err)
	}
	// Emitted on a retry too: if the first attempt stored the projection
	// but not its event, this completes it; otherwise it is a harmless
	// duplicate.
	if _, err := s.emitter.Emit(ctx, env); err != nil {
		return events.Envelope{}, err
	}
	return env, nil
}

// origin is an API submission's Origin: the *.created event id derived
// from the id, created now, in ctx's trace; an event the brokers could not carry is
// refused before anything is stored, naming field, the request field that
// carries the bulk (Limits.Validate makes this a backstop).
func (s *Service) origin(ctx context.Context, id string, created events.Type, by Caller, hash, field string) Origin {
	return Origin{ID: id, EventID: events.DeriveID(events.EventIDPrefix, id, string(created)), At: events.At(s.now()),
		Metadata: metadata(by.UserID, tracing.TraceID(ctx), by.CorrelationID), IdempotencyKey: by.IdempotencyKey, RequestHash: hash,
		Fits: func(env events.Envelope) error {
			if err := s.emitter.CheckSize(env); err != nil {
				return &ValidationError{Field: field, Reason: err.Error(), Err: err}
			}
			return nil
		}}
}

// failed is the error of a submission that could not be created: a
// catalog rejection is the client's (ValidationError), anything else the
// store's.
func (s *Service) failed(err error) error {
	if _, ok := errors.AsType[*events.ValidationError](err); ok {
		return catalogError(err)
	}
	if _, ok := errors.AsType[*ValidationError](err); ok {
		return err
	}
	return fmt.Errorf("submit: %w", err)
}

func validateWorkflow(req WorkflowRequest) error {
	switch {
	case strings.TrimSpace(req.Name) == "":
		return &ValidationError{Field: "name", Reason: "is required"}
	case len(req.Steps) == 0:
		return &ValidationError{Field: "steps", Reason: fmt.Sprintf("needs at least one step (known steps: %s)", strings.Join(events.Steps, ", "))}
	case !slices.Contains([]string{"low", "medium", "high"}, req.Priority):
		return &ValidationError{Field: "priority", Reason: fmt.Sprintf("must be one of low, medium, high (got %q)", req.Priority)}
	}
	for i, step := range req.Steps {
		if !events.KnownStep(step) {
			return &ValidationError{Field: fmt.Sprintf("steps[%d]", i),
				Reason: fmt.Sprintf("unknown step %q (known steps: %s)", step, strings.Join(events.Steps, ", "))}
		}
	}
	if len(req.Input) > 0 && !isObject(req.Input) {
		return &ValidationError{Field: "input", Reason: "must be a JSON object"}
	}
	return nil
}

func validateTask(req TaskRequest) error {
	switch {
	case !events.TaskType(req.Type).Known():
		return &ValidationError{Field: "type", Reason: fmt.Sprintf("unknown task type %q (known types: %s)", req.Type, strings.Join(events.TaskTypeNames(), ", "))}
	case !isObject(req.Data):
		return &ValidationError{Field: "data", Reason: "is required and must be a JSON object"}
	case req.MaxRetries != nil && (*req.MaxRetries < 0 || *req.MaxRetries > maxRetriesLimit):
		return &ValidationError{Field: "maxRetries", Reason: fmt.Sprintf("must be between 0 and %d", maxRetriesLimit)}
	}
	return nil
}

func isObject(raw json.RawMessage) bool {
	var m map[string]json.RawMessage
	return json.Unmarshal(raw, &m) == nil && m != nil
}

// catalogError turns a schema rejection of the built event into a
// ValidationError on the request field it came from.
func catalogError(err error) error {
	var verr *events.ValidationError
	if errors.As(err, &verr) {
		return &ValidationError{Field: strings.TrimPrefix(strings.ReplaceAll(verr.Path, "/", "."), ".payload."), Reason: verr.Message}
	}
	return err
}

// RequestHash identifies a request for its Idempotency-Key (a
// submission, a rerun, a webhook event's new attempt): the request and,
// when there is one, its principal, so the same key and body from another
// principal is a conflict rather than the first one's answer.
func RequestHash(req any, userID string) string {
	b, _ := json.Marshal(req)
	if userID != "" {
		b = append(append(b, 0), userID...)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
