package workflow_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/events/eventstest"
	"github.com/streamops/streamops/internal/status"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/stream"
	"github.com/streamops/streamops/internal/stream/streamtest"
	"github.com/streamops/streamops/internal/workflow"
)

// benchRecords is the batch size of the cost goal: at most 0.05
// store commands per record for a 1,000-record batch.
const benchRecords = 1000

// benchInput is each workflow's input: three records, a schema and a
// mapping, for validate, transform and store.
var benchInput = eventstest.MustJSON(map[string]any{
	"records": []map[string]any{{"id": 1, "total": 10.5}, {"id": 2, "total": 3}, {"id": 3, "total": "x"}},
	"schema":  map[string]any{"type": "object", "properties": map[string]any{"total": map[string]any{"type": "number"}}},
	"mapping": map[string]any{"orderId": "id", "amount": "total"},
	"dataset": "bench",
})

// benchBatch builds n workflow.created records over the three partitions
// and their pending projections.
func benchBatch(tb testing.TB, seed byte, n int) ([]*kgo.Record, []store.WorkflowCheckpoint) {
	g := streamtest.NewGen(seed)
	recs := make([]*kgo.Record, n)
	cps := make([]store.WorkflowCheckpoint, n)
	for i := range recs {
		wf := events.WorkflowCreatedPayload{WorkflowID: events.WorkflowIDPrefix + g.UUID(), Name: fmt.Sprint("bench-", i),
			Steps: []string{"validate", "transform", "store"}, Priority: events.PriorityMedium, CreatedAt: g.Now(), Input: benchInput}
		env := g.Envelope(tb, wf, streamtest.APIMetadata)
		recs[i] = g.Record(tb, env)
		cps[i].Workflow = store.Workflow{ID: wf.WorkflowID, WorkflowID: wf.WorkflowID, Name: wf.Name, Steps: wf.Steps,
			Priority: string(wf.Priority), Input: store.JSONDoc(wf.Input), EventID: env.EventID, CreatedAt: wf.CreatedAt.Time,
			Status: status.WorkflowPending}
	}
	return recs, cps
}

// BenchmarkWorkflowProcessor runs 1,000 three-step workflows (validate,
// transform and store on three records each) through the
// workflow-processor as one MSK batch, against the naive baseline of the
// same records handed over one per invocation, each on a fresh embedded
// store and kfake broker. It reports store commands per record (the cost
// on MongoDB, machine-independent) and records per second. On the embedded
// engine records/s is bound by the engine itself: lungo clones a
// collection for every operation of a bulk write, so a batch's writes cost
// O(n²) there while they are one command each on MongoDB. The
// processor-only variant runs the same batch against a store and emitter
// that discard, to show the processor's own share.
func BenchmarkWorkflowProcessor(b *testing.B) {
	streamtest.BenchProcessorVariants(b, "workflow-processor", benchRecords, func(b *testing.B, i int) streamtest.Round {
		h := newHarness(b, nil)
		recs, cps := benchBatch(b, byte(i), benchRecords)
		_, err := h.Env.Store.SaveWorkflowCheckpoints(context.Background(), cps...)
		require.NoError(b, err)
		return streamtest.Round{Records: recs, Deliver: h.Deliver, Commands: h.Env.Store.Commands, Env: h.Env}
	}, func(b *testing.B, i int) (stream.Handler, []*kgo.Record) {
		recs, cps := benchBatch(b, byte(i), benchRecords)
		d := discard{pending: make(map[string]store.WorkflowCheckpoint, len(cps))}
		for _, cp := range cps {
			d.pending[cp.WorkflowID] = cp
		}
		svc, err := workflow.New(workflow.Config{Store: d, Runtime: streamtest.DiscardRuntime()})
		require.NoError(b, err)
		return svc, recs
	})
}

// discard is a workflow store that keeps nothing.
type discard struct {
	streamtest.Discard
	pending map[string]store.WorkflowCheckpoint
}

func (d discard) GetWorkflowCheckpoints(context.Context, []string) (map[string]store.WorkflowCheckpoint, error) {
	return d.pending, nil
}
func (discard) GetWebhookEvents(context.Context, []string) (map[string]store.WebhookEvent, error) {
	return nil, nil
}
func (discard) InsertWorkflowRecords(context.Context, ...store.WorkflowRecord) (store.InsertResult, error) {
	return store.InsertResult{}, nil
}
func (discard) InsertTasks(context.Context, ...store.Task) (store.InsertResult, error) {
	return store.InsertResult{}, nil
}
func (discard) EnqueueOutbox(context.Context, ...store.OutboxEntry) (store.InsertResult, error) {
	return store.InsertResult{}, nil
}
func (discard) SaveWorkflowCheckpoints(context.Context, ...store.WorkflowCheckpoint) (int, error) {
	return 0, nil
}
func (discard) RecordStepAttempt(context.Context, string, int) (int, error) { return 1, nil }
