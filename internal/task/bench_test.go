package task_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/status"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/stream"
	"github.com/streamops/streamops/internal/stream/streamtest"
	"github.com/streamops/streamops/internal/task"
)

// benchRecords is the batch size of the cost goal.
const benchRecords = 1000

// benchBatch builds n email_notification task.created records over the
// three partitions, and their pending projections.
func benchBatch(tb testing.TB, seed byte, n int) ([]*kgo.Record, []store.Task) {
	g := streamtest.NewGen(seed)
	recs := make([]*kgo.Record, n)
	tasks := make([]store.Task, n)
	for i := range recs {
		data := []byte(fmt.Sprintf(`{"recipient":"user%d@example.com","template":"welcome_email"}`, i))
		tc := events.TaskCreatedPayload{TaskID: events.TaskIDPrefix + g.UUID(), Type: events.TaskEmailNotification,
			Data: data, MaxRetries: 3, CreatedAt: g.Now()}
		env := g.Envelope(tb, tc, streamtest.APIMetadata)
		recs[i] = g.Record(tb, env)
		tasks[i] = store.Task{ID: tc.TaskID, TaskID: tc.TaskID, Type: string(tc.Type), Data: store.JSONDoc(data),
			MaxRetries: 3, EventID: env.EventID, CreatedAt: tc.CreatedAt.Time, Status: status.TaskPending}
	}
	return recs, tasks
}

// BenchmarkTaskProcessor runs 1,000 email_notification tasks (rendered and
// sent to a mailer that keeps them in memory: sending is the task's own
// work, and the local file mailer's durable write of each mail would
// measure the disk) through the task-processor as
// one MSK batch, against the naive baseline of one record per invocation,
// each on a fresh embedded store and kfake broker; and once against a store
// and emitter that discard, for the processor's own share. Store commands
// per record are the cost on MongoDB; records/s on the embedded engine is
// bound by its per-operation collection copies (see the workflow
// benchmark).
func BenchmarkTaskProcessor(b *testing.B) {
	streamtest.BenchProcessorVariants(b, "task-processor", benchRecords, func(b *testing.B, i int) streamtest.Round {
		h := newHarness(b, task.Executors{events.TaskEmailNotification: task.EmailExecutor{Mailer: &flakyMailer{}}})
		recs, tasks := benchBatch(b, byte(i), benchRecords)
		_, err := h.Env.Store.InsertTasks(context.Background(), tasks...)
		require.NoError(b, err)
		return streamtest.Round{Records: recs, Deliver: h.Deliver, Commands: h.Env.Store.Commands, Env: h.Env}
	}, func(b *testing.B, i int) (stream.Handler, []*kgo.Record) {
		recs, tasks := benchBatch(b, byte(i), benchRecords)
		d := discard{pending: map[string]store.Task{}}
		for _, t := range tasks {
			d.pending[t.TaskID] = t
		}
		svc, err := task.New(task.Config{Store: d, Runtime: streamtest.DiscardRuntime(),
			Executors: task.Executors{events.TaskEmailNotification: task.EmailExecutor{Mailer: &flakyMailer{}}}})
		require.NoError(b, err)
		return svc, recs
	})
}

// discard is a task store that keeps nothing.
type discard struct {
	streamtest.Discard
	pending map[string]store.Task
}

func (d discard) GetTasks(context.Context, []string) (map[string]store.Task, error) {
	return d.pending, nil
}
func (discard) SaveTaskOutcomes(context.Context, ...store.TaskOutcome) (int, error) { return 0, nil }
