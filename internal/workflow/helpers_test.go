package workflow_test

import (
	"context"
	"maps"
	"sync"
	"testing"
	"time"

	lambdaevents "github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/store/storetest"
	"github.com/streamops/streamops/internal/stream"
	"github.com/streamops/streamops/internal/stream/streamtest"
	"github.com/streamops/streamops/internal/workflow"
)

// harness is the workflow-processor as its Lambda wires it, on kfake and
// the embedded store.
type harness struct{ *streamtest.Harness }

// ticking is a clock that moves 7 ms per reading, so durations are
// positive and reproducible.
func ticking() func() time.Time { return storetest.NewTickingClock(7 * time.Millisecond).Now }

// counts are counters that steps under test bump from the processor's
// goroutines.
type counts struct {
	mu sync.Mutex
	m  map[string]int
}

// add adds d to key's counter and returns the sum.
func (c *counts) add(key string, d int) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string]int{}
	}
	c.m[key] += d
	return c.m[key]
}

// all is a copy of every counter.
func (c *counts) all() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.m)
}

// wrapSteps is the built-in steps with each named one replaced by what
// wrap makes of it.
func wrapSteps(wrap func(name string, builtin workflow.StepFunc) workflow.StepFunc, names ...string) *workflow.Registry {
	r := workflow.BuiltinSteps()
	for _, name := range names {
		builtin, _ := r.Lookup(name)
		r.Register(name, wrap(name, builtin))
	}
	return r
}

func newHarness(tb testing.TB, steps *workflow.Registry) *harness {
	tb.Helper()
	// The deployed workflow-processor's timeout: a 1,000-workflow batch
	// stores 5,000 events, which on FerretDB (20 indexes, text included)
	// takes longer than 30 s.
	h := &harness{streamtest.NewHarness(tb, "workflow-processor", events.TopicWorkflows, 2*time.Minute)}
	svc, err := workflow.New(workflow.Config{Store: h.Env.Store, Steps: steps, Runtime: h.Runtime(ticking())})
	require.NoError(tb, err)
	h.Use(tb, svc)
	return h
}

// submitted stores the projection of every workflow.created in the batch,
// as the API or the webhook ingest did before publishing it.
func (h *harness) submitted(tb testing.TB, ev lambdaevents.KafkaEvent) []events.WorkflowCreatedPayload {
	tb.Helper()
	var out []events.WorkflowCreatedPayload
	for _, p := range stream.DecodeKafkaEvent(ev, stream.WithValidator(events.Validate)) {
		for _, m := range p.Messages {
			if m.Err != nil || m.Envelope.EventType != events.WorkflowCreated {
				continue
			}
			wf, err := events.PayloadAs[events.WorkflowCreatedPayload](m.Envelope)
			require.NoError(tb, err)
			w := store.Workflow{WorkflowID: wf.WorkflowID, Name: wf.Name, Steps: wf.Steps, Priority: string(wf.Priority),
				Input: store.JSONDoc(wf.Input), EventID: m.Envelope.EventID, CreatedAt: wf.CreatedAt.Time}
			if md := m.Envelope.Metadata; md != nil && md.Source == "webhook" {
				w.CorrelationID, w.WebhookEventID = md.CorrelationID, md.CorrelationID
			}
			_, err = h.Env.Store.CreateWorkflow(context.Background(), w)
			require.NoError(tb, err)
			out = append(out, wf)
		}
	}
	return out
}

func (h *harness) workflow(tb testing.TB, id string) store.WorkflowCheckpoint {
	tb.Helper()
	got, err := h.Env.Store.GetWorkflowCheckpoints(context.Background(), []string{id})
	require.NoError(tb, err)
	require.Contains(tb, got, id)
	return got[id]
}

// count is how many documents of an exportable collection there are.
func (h *harness) count(tb testing.TB, collection string) int {
	tb.Helper()
	return len(h.Documents(tb, collection))
}

func typesOf(envs []events.Envelope) []events.Type {
	out := make([]events.Type, len(envs))
	for i, e := range envs {
		out[i] = e.EventType
	}
	return out
}
