package workflow

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/streamops/streamops/events"
)

// StepFunc is one workflow step: it reads the records the previous step
// passed on and returns the records for the next one with the step's
// result counters. It must not write anything itself; it asks for writes
// through in.Effects, keyed by ids derived from the workflow id and step
// index, so running it again is harmless. A permanent *fault.Error
// (fault.Permanent) or an unclassified error fails the workflow; an error
// marked fault.Transient makes the processor retry the step.
type StepFunc func(ctx context.Context, in StepInput) (StepOutput, error)

// StepInput is what a step is given.
type StepInput struct {
	// Workflow describes the workflow being run.
	Workflow Info
	// StepName and StepIndex name the step within the workflow.
	StepName  string
	StepIndex int
	// At is when the step started, by the processor's clock.
	At time.Time
	// Records are the records the previous step passed on (the input's
	// records for the first step). Each is a JSON object.
	Records []json.RawMessage
	// Params are the step parameters of the workflow's input (see
	// ParseInput); read one with Param.
	Params map[string]json.RawMessage
	// Metadata is what events a step starts must carry (source, processor,
	// correlation id).
	Metadata *events.Metadata
	// Effects collects the writes the step asks for.
	Effects *Effects
}

// Info describes a workflow to its steps.
type Info struct {
	ID            string
	Name          string
	Priority      string
	CorrelationID string
	// WebhookEventID and Provider are set when a webhook started the
	// workflow: the webhook event's id and the provider that sent it.
	WebhookEventID string
	Provider       string
	// PartnerID is the provider or partner whose webhook started the
	// workflow (metadata.partnerId), carried to every event and task of it.
	PartnerID string
	// UserID is the principal whose request started the workflow
	// (metadata.userId), carried to every event and task of it.
	UserID string
	// TraceID is the trace the workflow is part of (metadata.traceId),
	// carried to every event, task and delivery of it.
	TraceID string
}

// Param decodes the parameter name into v; found is false when the input
// has no such parameter.
func (in StepInput) Param(name string, v any) (found bool, err error) {
	raw, ok := in.Params[name]
	if !ok || string(raw) == "null" {
		return false, nil
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return true, fmt.Errorf("input.%s: %w", name, err)
	}
	return true, nil
}

// StepOutput is what a step returns.
type StepOutput struct {
	// Records are passed on to the next step.
	Records []json.RawMessage
	// Result is the step's result in workflow.step.completed: seed 003's
	// record counters and any extra keys.
	Result events.StepResult
}

// Registry maps step names to step functions. It is safe for concurrent
// use; register steps before the first batch.
type Registry struct {
	mu    sync.RWMutex
	steps map[string]StepFunc
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{steps: map[string]StepFunc{}} }

// BuiltinSteps returns a registry holding the built-in steps under their
// catalog names (events.Steps): validate, transform, store, notify and
// deliver.
func BuiltinSteps() *Registry {
	r := NewRegistry()
	r.Register("validate", ValidateStep)
	r.Register("transform", TransformStep)
	r.Register("store", StoreStep)
	r.Register("notify", NotifyStep)
	r.Register("deliver", DeliverStep)
	return r
}

// Register adds or replaces the step called name.
func (r *Registry) Register(name string, fn StepFunc) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.steps[name] = fn
}

// Lookup returns the step called name.
func (r *Registry) Lookup(name string) (StepFunc, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	fn, ok := r.steps[name]
	return fn, ok
}

// Names lists the registered steps, sorted.
func (r *Registry) Names() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return slices.Sorted(maps.Keys(r.steps))
}
