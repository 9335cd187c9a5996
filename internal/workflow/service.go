package workflow

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/bus"
	"github.com/streamops/streamops/internal/emit"
	"github.com/streamops/streamops/internal/metrics"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/stream"
)

// StateStore is what the processor reads and writes besides events;
// *store.Store implements it.
type StateStore interface {
	GetWorkflowCheckpoints(ctx context.Context, workflowIDs []string) (map[string]store.WorkflowCheckpoint, error)
	GetWebhookEvents(ctx context.Context, eventIDs []string) (map[string]store.WebhookEvent, error)
	InsertWorkflowRecords(ctx context.Context, recs ...store.WorkflowRecord) (store.InsertResult, error)
	InsertTasks(ctx context.Context, tasks ...store.Task) (store.InsertResult, error)
	EnqueueOutbox(ctx context.Context, entries ...store.OutboxEntry) (store.InsertResult, error)
	SettleWebhookEvents(ctx context.Context, outcomes ...store.WebhookOutcome) (int, error)
	SaveWorkflowCheckpoints(ctx context.Context, cps ...store.WorkflowCheckpoint) (int, error)
	// RecordStepAttempt records that a step is starting and returns how
	// often it was started (store.Store.RecordStepAttempt).
	RecordStepAttempt(ctx context.Context, workflowID string, stepIndex int) (int, error)
}

// Emitter stores then publishes events; *emit.Emitter implements it.
type Emitter interface {
	Emit(ctx context.Context, envs ...events.Envelope) (emit.Result, error)
}

// Config wires a Service.
type Config struct {
	// Store holds the projections and the steps' writes. Required.
	Store StateStore
	// Emitter stores then publishes the lifecycle events. Required.
	Emitter Emitter
	// Steps are the steps workflows may use. Default BuiltinSteps().
	Steps *Registry
	// ProcessorID is metadata.processorId of the emitted events (the
	// Lambda's log stream; see stream.ProcessorIDFromEnv). Default
	// "event-processor".
	ProcessorID string
	// DeadlineMargin is how close to the invocation's deadline the
	// processor stops starting steps, checkpoints and fails the batch so it
	// is delivered again and resumed: enough time to write a batch's
	// checkpoints. Default 5 s.
	DeadlineMargin time.Duration
	// MaxStepAttempts is how many times in a row a step may fail
	// transiently (Transient, or the invocation's context ending) before
	// its workflow fails with STEP_RETRIES_EXHAUSTED, so a dependency that
	// stays down ends the workflow instead of having its batch redelivered
	// until the event source gives up on it. Default 5, below the 10
	// retries of the deployed MSK event source mapping.
	MaxStepAttempts int
	// Now is the clock of timestamps and durations. Default time.Now.
	Now func() time.Time
	// Logger receives structured logs. Default slog.Default().
	Logger *slog.Logger
	// Metrics receives WorkflowsCompleted, WorkflowsFailed and
	// StepsCompleted per batch. Default: none.
	Metrics *metrics.Recorder
}

func (c *Config) setDefaults() {
	if c.Steps == nil {
		c.Steps = BuiltinSteps()
	}
	if c.ProcessorID == "" {
		c.ProcessorID = Source
	}
	if c.DeadlineMargin == 0 {
		c.DeadlineMargin = 5 * time.Second
	}
	if c.MaxStepAttempts == 0 {
		c.MaxStepAttempts = 5
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
		return errors.New("workflow: Config.Store is required")
	case c.Emitter == nil:
		return errors.New("workflow: Config.Emitter is required")
	case c.DeadlineMargin < 0:
		return errors.New("workflow: Config.DeadlineMargin must not be negative")
	case c.MaxStepAttempts < 0:
		return errors.New("workflow: Config.MaxStepAttempts must not be negative")
	}
	return nil
}

// Service runs workflows; it is the workflow-processor's stream.Handler.
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

// Accepts is workflow.created: every other event of the workflows topic is
// a lifecycle event the processor itself emitted.
func (s *Service) Accepts() []events.Type { return []events.Type{events.WorkflowCreated} }

// item is one workflow.created of the batch.
type item struct {
	msg     bus.Message
	payload events.WorkflowCreatedPayload
}

// HandleBatch runs the workflows a batch of workflow.created starts; see
// the package documentation for the phases and why they are safe to repeat.
func (s *Service) HandleBatch(ctx context.Context, b *stream.Batch) error {
	parts := make([][]item, 0, len(b.Partitions))
	var ids []string
	for _, p := range b.Partitions {
		var items []item
		for _, m := range p.Messages {
			payload, err := events.PayloadAs[events.WorkflowCreatedPayload](m.Envelope)
			if err != nil {
				b.DeadLetter(m, bus.ReasonProcessingFailed, err)
				continue
			}
			items = append(items, item{m, payload})
			ids = append(ids, payload.WorkflowID)
		}
		parts = append(parts, items)
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)

	states, err := s.load(ctx, parts, ids)
	if err != nil {
		return err
	}
	runErr := stream.ForEachPartition(ctx, parts, func(ctx context.Context, items []item) error {
		for _, it := range items {
			err := s.handle(ctx, states[it.payload.WorkflowID], it)
			switch {
			case err == nil:
			case IsRetryable(err):
				return err // the rest of the partition waits for the redelivery
			default:
				b.DeadLetter(it.msg, bus.ReasonProcessingFailed, err)
			}
		}
		return nil
	})

	var touched []*state
	seen := map[*state]bool{}
	for _, items := range parts {
		for _, it := range items {
			if st := states[it.payload.WorkflowID]; st.dirty && !seen[st] {
				seen[st] = true
				touched = append(touched, st)
			}
		}
	}
	return errors.Join(runErr, s.flush(ctx, touched))
}

// state is one workflow during a batch.
type state struct {
	mu      sync.Mutex
	cp      store.WorkflowCheckpoint
	info    Info
	dirty   bool // changed in this batch: flush it
	effects Effects
	events  []events.Envelope
	webhook *store.WebhookOutcome
	steps   int // steps completed in this batch
}

// load reads the projections of the batch's workflows (one query), creates
// in memory those missing, and looks up the providers of webhook-started
// workflows that deliver (one more query, only when there are some).
func (s *Service) load(ctx context.Context, parts [][]item, ids []string) (map[string]*state, error) {
	stored, err := s.cfg.Store.GetWorkflowCheckpoints(ctx, ids)
	if err != nil {
		return nil, err
	}
	states := make(map[string]*state, len(ids))
	var hooks []string
	for _, items := range parts {
		for _, it := range items {
			id := it.payload.WorkflowID
			if states[id] != nil {
				continue
			}
			cp, ok := stored[id]
			if !ok {
				cp = fromEvent(it)
				s.cfg.Logger.WarnContext(ctx, "workflow has no projection; creating it from its event", "workflowId", id, "eventId", it.msg.Envelope.EventID)
			}
			states[id] = &state{cp: cp, info: Info{
				ID: id, Name: cp.Name, Priority: cp.Priority, CorrelationID: cp.CorrelationID, WebhookEventID: cp.WebhookEventID,
				PartnerID: cp.PartnerID,
			}}
			if cp.WebhookEventID != "" && !ended(cp.Status) && slices.Contains(cp.Steps, "deliver") {
				hooks = append(hooks, cp.WebhookEventID)
			}
		}
	}
	if len(hooks) > 0 {
		evs, err := s.cfg.Store.GetWebhookEvents(ctx, hooks)
		if err != nil {
			return nil, err
		}
		for _, st := range states {
			st.info.Provider = evs[st.info.WebhookEventID].Provider
		}
	}
	return states, nil
}

// fromEvent is the projection of a workflow whose producer stored its
// workflow.created but crashed before the projection: rebuilt from the
// event, pending. A webhook-started workflow is recognised by its
// metadata (source "webhook", correlationId = webhook event id).
func fromEvent(it item) store.WorkflowCheckpoint {
	p, env := it.payload, it.msg.Envelope
	wf := store.Workflow{
		ID: p.WorkflowID, WorkflowID: p.WorkflowID, Name: p.Name, Steps: p.Steps, Priority: string(p.Priority),
		Input: store.JSONDoc(p.Input), Status: store.WorkflowPending, EventID: env.EventID, CreatedAt: p.CreatedAt.Time,
	}
	if md := env.Metadata; md != nil {
		wf.CorrelationID, wf.PartnerID = md.CorrelationID, md.PartnerID
		if md.Source == "webhook" {
			wf.WebhookEventID = md.CorrelationID
		}
	}
	return store.WorkflowCheckpoint{Workflow: wf}
}

func ended(status string) bool {
	return status == store.WorkflowCompleted || status == store.WorkflowFailed
}
