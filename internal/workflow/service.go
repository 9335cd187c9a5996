package workflow

import (
	"context"
	"errors"
	"slices"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/fault"
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
	GetWorkflowCheckpoints(ctx context.Context, workflowIDs []string) (map[string]store.WorkflowCheckpoint, error)
	GetWebhookEvents(ctx context.Context, eventIDs []string) (map[string]store.WebhookEvent, error)
	InsertWorkflowRecords(ctx context.Context, recs ...store.WorkflowRecord) (store.InsertResult, error)
	InsertTasks(ctx context.Context, tasks ...store.Task) (store.InsertResult, error)
	EnqueueOutbox(ctx context.Context, entries ...store.OutboxEntry) (store.InsertResult, error)
	SaveWorkflowCheckpoints(ctx context.Context, cps ...store.WorkflowCheckpoint) (int, error)
	// RecordStepAttempt records that a long step attempt is running and returns how
	// often it was started (store.Store.RecordStepAttempt).
	RecordStepAttempt(ctx context.Context, workflowID string, stepIndex int) (int, error)
}

// Config wires a Service.
type Config struct {
	// Store holds the projections and the steps' writes. Required.
	Store StateStore
	// Steps are the steps workflows may use. Default BuiltinSteps().
	Steps *Registry
	// MaxStepAttempts is how many times in a row a step may fail
	// transiently (fault.Transient, or the invocation's context ending) before
	// its workflow fails with STEP_RETRIES_EXHAUSTED, so a dependency that
	// stays down ends the workflow instead of having its batch redelivered
	// until the event source gives up on it. Default 5, below the 10
	// retries of the deployed MSK event source mapping.
	MaxStepAttempts int
	// Runtime is the processor's id, clock, deadline margin, logs and
	// metrics (WorkflowsCompleted, WorkflowsFailed and StepsCompleted per batch).
	stream.Runtime
}

// SetDefaults fills in the defaults of zero fields.
func (c *Config) SetDefaults() {
	if c.Steps == nil {
		c.Steps = BuiltinSteps()
	}
	if c.MaxStepAttempts == 0 {
		c.MaxStepAttempts = 5
	}
	c.Runtime = c.Runtime.For("workflow")
}

// Validate reports the first missing or bad field.
func (c Config) Validate() error {
	switch {
	case c.Store == nil:
		return errors.New("workflow: Config.Store is required")
	case c.MaxStepAttempts < 0:
		return errors.New("workflow: Config.MaxStepAttempts must not be negative")
	}
	return c.Runtime.Validate()
}

// Service runs workflows: the workflow-processor's stream.Handler, the
// stream core around the workflow step. Safe for concurrent use.
type Service = stream.Keyed[events.WorkflowCreatedPayload, *state]

// New returns a Service.
func New(cfg Config) (*Service, error) {
	return stream.NewKeyed(events.WorkflowCreated, cfg, func(c Config) stream.Aggregates[events.WorkflowCreatedPayload, *state] { return workflows{c} })
}

// item is one workflow.created of the batch.
type item = stream.Item[events.WorkflowCreatedPayload]

// workflows is the workflow processor's domain step: the stream core's
// Aggregates over workflows.
type workflows struct{ cfg Config }

// state is one workflow during a batch.
type state struct {
	wf      State
	info    Info
	effects Effects
	stream.Outcome
	steps int // steps completed in this batch
}

// Key is the workflow a workflow.created starts.
func (workflows) Key(p events.WorkflowCreatedPayload) string { return p.WorkflowID }

// Load reads the projections of the batch's workflows with one query.
func (w workflows) Load(ctx context.Context, ids []string) (map[string]*state, error) {
	return stream.LoadEach(ctx, ids, w.cfg.Store.GetWorkflowCheckpoints, func(cp store.WorkflowCheckpoint) *state {
		return newState(fromCheckpoint(cp))
	})
}

// Rebuild is the projection of a workflow whose producer stored its
// workflow.created but crashed before the projection: rebuilt from the
// event, pending. A webhook-started workflow is recognised by its
// metadata (source "webhook", correlationId = webhook event id).
func (w workflows) Rebuild(ctx context.Context, it item) *state {
	p, env := it.Payload, it.Msg.Envelope
	w.cfg.Logger.WarnContext(ctx, "workflow has no projection; creating it from its event", "workflowId", p.WorkflowID, "eventId", env.EventID)
	wf := State{
		ID: p.WorkflowID, Name: p.Name, Steps: p.Steps, Priority: string(p.Priority), Input: p.Input,
		Status: status.WorkflowPending, CreatedAt: p.CreatedAt.Time, Origin: stream.OriginOf(env, it.Msg.TraceID(ctx)),
	}
	return newState(wf)
}

func newState(wf State) *state {
	return &state{wf: wf, info: Info{
		ID: wf.ID, Name: wf.Name, Priority: wf.Priority, CorrelationID: wf.CorrelationID, WebhookEventID: wf.WebhookEventID,
		PartnerID: wf.PartnerID, UserID: wf.UserID, TraceID: wf.TraceID,
	}}
}

// Prepare looks up the providers of the webhook-started workflows that
// deliver, with one more query, only when there are some.
func (w workflows) Prepare(ctx context.Context, states map[string]*state) error {
	var hooks []string
	for _, st := range states {
		if st.wf.Delivers() {
			hooks = append(hooks, st.wf.WebhookEventID)
		}
	}
	if len(hooks) == 0 {
		return nil
	}
	slices.Sort(hooks)
	evs, err := w.cfg.Store.GetWebhookEvents(ctx, slices.Compact(hooks))
	if err != nil {
		return err
	}
	for _, st := range states {
		st.info.Provider = evs[st.info.WebhookEventID].Provider
	}
	return nil
}

// Step runs one workflow.created; a workflow that can never run is
// dead-lettered, a run that stopped early fails the partition.
func (w workflows) Step(ctx context.Context, b *stream.Batch, st *state, it item) error {
	if st.wf.TraceID == "" {
		// Stored before traces were kept: its events carry the record's.
		st.wf.TraceID = it.Msg.TraceID(ctx)
		st.info.TraceID = st.wf.TraceID
	}
	err := w.handle(ctx, st, it)
	if err == nil || fault.IsRetryable(err) {
		return err // a retryable error: the rest of the partition waits for the redelivery
	}
	b.DeadLetter(it.Msg, stream.ReasonProcessingFailed, err)
	return nil
}
