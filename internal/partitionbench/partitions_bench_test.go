package partitionbench

import (
	"context"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/events/eventstest"
	"github.com/streamops/streamops/internal/bus"
	"github.com/streamops/streamops/internal/local"
	"github.com/streamops/streamops/internal/status"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/store/storetest"
	"github.com/streamops/streamops/internal/stream/streamtest"
)

// loadWorkflows is each side's load per iteration: enough for every one
// of 12 partitions to get several full batches (mapping.json's 100
// records, a workflow being 6 records on its topic).
const loadWorkflows = 600

// recordsPerWorkflow are the records a three-step workflow puts on the
// workflows topic, each read by the workflow-processor: workflow.created,
// workflow.processing, three workflow.step.completed, workflow.completed.
const recordsPerWorkflow = 6

// sides are the partition counts compared: seed 003's 3 and 12.
var sides = []int32{3, 12}

// input is each workflow's input: three records, a schema and a mapping,
// for validate, transform and store (BenchmarkWorkflowProcessor's).
var input = eventstest.MustJSON(map[string]any{
	"records": []map[string]any{{"id": 1, "total": 10.5}, {"id": 2, "total": 3}, {"id": 3, "total": "x"}},
	"schema":  map[string]any{"type": "object", "properties": map[string]any{"total": map[string]any{"type": "number"}}},
	"mapping": map[string]any{"orderId": "id", "amount": "total"},
	"dataset": "bench",
})

// TestPartitionScalingRunsEveryWorkflowOnEitherCount is the benchmark's
// mechanism, small: on 3 partitions and on 12, every workflow of the load
// completes and the mapping reads each of its records once (run checks
// both), with the topic at the count asked for.
func TestPartitionScalingRunsEveryWorkflowOnEitherCount(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two local stacks")
	}
	for _, n := range sides {
		s := startSide(t, n)
		s.run(t, 0, 24)
		assert.Equal(t, 24*recordsPerWorkflow, s.stack.MappingStats()["workflow-processor"].Records, "%d partitions: no record read twice", n)
		cl, err := kgo.NewClient(kgo.SeedBrokers(s.stack.Brokers()...))
		require.NoError(t, err)
		details, err := kadm.NewClient(cl).ListTopics(t.Context(), events.TopicWorkflows)
		cl.Close()
		require.NoError(t, err)
		assert.Len(t, details[events.TopicWorkflows].Partitions, int(n))
	}
}

// BenchmarkPartitionScaling is the same load on two local stacks, one
// with 3 partitions a topic (STREAMOPS_KAFKA_PARTITIONS=3) and one with
// 12, each with its own store on the engine under test: an iteration
// stores loadWorkflows pending three-step workflows with one bulk write
// (as the API would one by one) and publishes their workflow.created
// through the producer, then times until the workflow-processor's
// mapping has committed every record of their runs. The stand-in runs
// one batch per partition at a time, as an MSK event source mapping
// runs one invocation per partition, so the partitions are the
// processors' parallelism; the store they share bounds it. The two
// sides alternate within an iteration, so a busy machine slows both
// alike. It reports records/s and workflows/s in total and records/s per
// partition, of each side.
func BenchmarkPartitionScaling(b *testing.B) {
	b.Run("3-vs-12", func(b *testing.B) {
		stacks := make([]*side, len(sides))
		for i, n := range sides {
			stacks[i] = startSide(b, n)
		}
		var iter byte
		for b.Loop() {
			for _, s := range stacks {
				s.run(b, iter, loadWorkflows)
			}
			iter++
		}
		b.StopTimer()
		for _, s := range stacks {
			records := float64(s.records)
			secs := s.busy.Seconds()
			p := fmt.Sprintf("p%d-", s.partitions)
			b.ReportMetric(records/secs, p+"records/s")
			b.ReportMetric(records/secs/float64(s.partitions), p+"records/s/partition")
			b.ReportMetric(float64(s.workflows)/secs, p+"workflows/s")
		}
	})
}

// side is one stack under load and what it processed.
type side struct {
	partitions int32
	stack      *local.Stack
	producer   *bus.Client
	// workflows and records are what its iterations processed, in busy.
	workflows, records int
	busy               time.Duration
}

// startSide starts a local stack whose topics have n partitions.
func startSide(b testing.TB, n int32) *side {
	b.Helper()
	db := storetest.Configure(b, store.Config{})
	s, err := local.Start(context.Background(), local.Config{
		DataDir: b.TempDir(), HTTPAddr: "127.0.0.1:0", KafkaAddr: "127.0.0.1:0", MongoURI: db.URI, Database: db.Database,
		KafkaPartitions: bus.PartitionCounts{Default: n}, LogLevel: "warn", LogOutput: io.Discard,
		Getenv: func(string) string { return "" },
	})
	require.NoError(b, err)
	b.Cleanup(func() { _ = s.Shutdown(context.Background()) })
	producer, err := bus.New(bus.Config{Brokers: s.Brokers()})
	require.NoError(b, err)
	b.Cleanup(producer.Close)
	return &side{partitions: n, stack: s, producer: producer}
}

// run puts workflows (one iteration's load) on the side and waits until it is
// processed, adding it to the side's totals.
func (s *side) run(b testing.TB, iter byte, workflows int) {
	b.Helper()
	ctx := context.Background()
	g := streamtest.NewGen(iter)
	envs := make([]events.Envelope, workflows)
	cps := make([]store.WorkflowCheckpoint, workflows)
	ids := make([]string, workflows)
	for i := range envs {
		wf := events.WorkflowCreatedPayload{WorkflowID: events.WorkflowIDPrefix + g.UUID(), Name: fmt.Sprint("partitions-", i),
			Steps: []string{"validate", "transform", "store"}, Priority: events.PriorityMedium, CreatedAt: events.At(time.Now()), Input: input}
		envs[i] = g.Envelope(b, wf, streamtest.APIMetadata)
		ids[i] = wf.WorkflowID
		cps[i].Workflow = store.Workflow{ID: wf.WorkflowID, WorkflowID: wf.WorkflowID, Name: wf.Name, Steps: wf.Steps,
			Priority: string(wf.Priority), Input: store.JSONDoc(wf.Input), EventID: envs[i].EventID, CreatedAt: wf.CreatedAt.Time,
			Status: status.WorkflowPending}
	}
	_, err := s.stack.Store().SaveWorkflowCheckpoints(ctx, cps...)
	require.NoError(b, err)

	const fn = "workflow-processor"
	want := s.stack.MappingStats()[fn].Records + workflows*recordsPerWorkflow
	start := time.Now()
	require.NoError(b, s.producer.Publish(ctx, envs...))
	deadline := start.Add(10 * time.Minute)
	for s.stack.MappingStats()[fn].Records < want {
		require.True(b, time.Now().Before(deadline), "%d partitions: %d of %d records processed after 10 min",
			s.partitions, s.stack.MappingStats()[fn].Records, want)
		time.Sleep(5 * time.Millisecond)
	}
	s.busy += time.Since(start)
	s.workflows += workflows
	s.records += workflows * recordsPerWorkflow

	done, err := s.stack.Store().GetWorkflowCheckpoints(ctx, ids)
	require.NoError(b, err)
	for _, id := range ids {
		require.Equal(b, status.WorkflowCompleted, done[id].Workflow.Status, "%d partitions: workflow %s", s.partitions, id)
	}
}
