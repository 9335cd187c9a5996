package eventlog

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/events"
)

// lines decodes the JSON lines of buf, dropping slog's time and level.
func lines(t *testing.T, buf *bytes.Buffer) []map[string]any {
	t.Helper()
	var out []map[string]any
	dec := json.NewDecoder(buf)
	for dec.More() {
		var l map[string]any
		require.NoError(t, dec.Decode(&l))
		assert.Equal(t, "INFO", l["level"], "seed 003 logs both lines at info")
		delete(l, "time")
		delete(l, "level")
		out = append(out, l)
	}
	return out
}

func jsonLogger(buf *bytes.Buffer, level slog.Level) *slog.Logger {
	return slog.New(slog.NewJSONHandler(buf, &slog.HandlerOptions{Level: level}))
}

// The two lines carry seed 003's fields as it names them ("Example
// Logging"), the aggregate id under the name of its topic's key.
func TestLinesCarrySeed003sFieldsAsNamed(t *testing.T) {
	tests := []struct {
		name string
		log  func(*slog.Logger)
		want map[string]any
	}{
		{"producer, workflows", func(l *slog.Logger) {
			Published(context.Background(), l, Sampling{}, events.TopicWorkflows, events.WorkflowCreated, "evt-1", "wf-123", 2, 45678)
		}, map[string]any{"msg": "Event published", "topic": "workflows", "eventType": "workflow.created", "workflowId": "wf-123",
			"partition": 2.0, "offset": 45678.0}},
		{"consumer, workflows", func(l *slog.Logger) {
			Processed(context.Background(), l, Sampling{}, events.TopicWorkflows, events.WorkflowCreated, "evt-1", "wf-123", 2345*time.Millisecond+600*time.Microsecond, true)
		}, map[string]any{"msg": "Event processed", "topic": "workflows", "eventType": "workflow.created", "workflowId": "wf-123",
			"processingTime": 2345.0, "success": true}},
		{"producer, tasks", func(l *slog.Logger) {
			Published(context.Background(), l, Sampling{}, events.TopicTasks, events.TaskCreated, "evt-2", "task-9", 0, 7)
		}, map[string]any{"msg": "Event published", "topic": "tasks", "eventType": "task.created", "taskId": "task-9",
			"partition": 0.0, "offset": 7.0}},
		{"consumer, a task dead-lettered", func(l *slog.Logger) {
			Processed(context.Background(), l, Sampling{}, events.TopicTasks, events.TaskCreated, "evt-2", "task-9", 12*time.Millisecond, false)
		}, map[string]any{"msg": "Event processed", "topic": "tasks", "eventType": "task.created", "taskId": "task-9",
			"processingTime": 12.0, "success": false}},
		{"producer, operations: keyed by partnerId", func(l *slog.Logger) {
			Published(context.Background(), l, Sampling{}, events.TopicOperations, events.PartnerPaused, "evt-3", "acme", 1, 3)
		}, map[string]any{"msg": "Event published", "topic": "operations", "eventType": "partner.paused", "partnerId": "acme",
			"partition": 1.0, "offset": 3.0}},
		{"producer, a replay's target topic: named by the event's type", func(l *slog.Logger) {
			Published(context.Background(), l, Sampling{}, "replay-target", events.WorkflowCompleted, "evt-4", "wf-1", 0, 0)
		}, map[string]any{"msg": "Event published", "topic": "replay-target", "eventType": "workflow.completed", "workflowId": "wf-1",
			"partition": 0.0, "offset": 0.0}},
		{"consumer, an unknown type read from tasks.dlq", func(l *slog.Logger) {
			Processed(context.Background(), l, Sampling{}, "tasks.dlq", "task.renamed", "evt-5", "task-1", 0, false)
		}, map[string]any{"msg": "Event processed", "topic": "tasks.dlq", "eventType": "task.renamed", "taskId": "task-1",
			"processingTime": 0.0, "success": false}},
		{"consumer, an unknown type of an unknown topic", func(l *slog.Logger) {
			Processed(context.Background(), l, Sampling{}, "elsewhere", "", "", "k", 0, false)
		}, map[string]any{"msg": "Event processed", "topic": "elsewhere", "eventType": "", "aggregateId": "k",
			"processingTime": 0.0, "success": false}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			tc.log(jsonLogger(&buf, slog.LevelInfo))
			got := lines(t, &buf)
			require.Len(t, got, 1)
			assert.Equal(t, tc.want, got[0])
		})
	}
}

// Lines follow the logger's level and exist only with a logger.
func TestLinesAreInfoAndNeedALogger(t *testing.T) {
	var buf bytes.Buffer
	ctx := context.Background()
	Published(ctx, jsonLogger(&buf, slog.LevelWarn), Sampling{}, events.TopicTasks, events.TaskCreated, "e", "t", 0, 0)
	Processed(ctx, jsonLogger(&buf, slog.LevelWarn), Sampling{}, events.TopicTasks, events.TaskCreated, "e", "t", 0, false)
	Published(ctx, nil, Sampling{}, events.TopicTasks, events.TaskCreated, "e", "t", 0, 0)
	Processed(ctx, nil, Sampling{}, events.TopicTasks, events.TaskCreated, "e", "t", 0, false)
	assert.Empty(t, buf.String())
}

// A sampling keeps its share of events, chosen by event id alone (so the
// producer and the consumer of an event agree), and never drops a line
// that says success=false.
func TestSamplingKeepsItsShareByEventIDAndEveryFailure(t *testing.T) {
	ids := make([]string, 4_000)
	const logged = 400 // of them, the ids whose lines are written
	for i := range ids {
		ids[i] = fmt.Sprintf("evt-%08d-4f1c-4b7e-9a5d-%012d", i, i*7919)
	}
	tests := []struct {
		ratio    float64
		min, max int // kept of 4,000
	}{
		{1, 4_000, 4_000},
		{2, 4_000, 4_000},
		{0.5, 1_800, 2_200},
		{0.01, 15, 70},
		{0, 0, 0},
		{-1, 0, 0},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprint(tc.ratio), func(t *testing.T) {
			s := Ratio(tc.ratio)
			var published, processed, failed bytes.Buffer
			pub, proc, fail := jsonLogger(&published, slog.LevelInfo), jsonLogger(&processed, slog.LevelInfo), jsonLogger(&failed, slog.LevelInfo)
			kept, keptLogged := 0, 0
			for i, id := range ids {
				if s.Keep(id) {
					kept++
				}
				assert.Equal(t, s.Keep(id), Ratio(tc.ratio).Keep(id), "the same id, the same choice")
				if i >= logged {
					continue
				}
				if s.Keep(id) {
					keptLogged++
				}
				Published(context.Background(), pub, s, events.TopicTasks, events.TaskCreated, id, "t", 0, 0)
				Processed(context.Background(), proc, s, events.TopicTasks, events.TaskCreated, id, "t", 0, true)
				Processed(context.Background(), fail, s, events.TopicTasks, events.TaskCreated, id, "t", 0, false)
			}
			assert.GreaterOrEqual(t, kept, tc.min)
			assert.LessOrEqual(t, kept, tc.max)
			assert.Len(t, lines(t, &published), keptLogged, "a published line per kept event")
			assert.Len(t, lines(t, &processed), keptLogged, "a processed line per kept event")
			assert.Len(t, lines(t, &failed), logged, "every failure")
		})
	}
	assert.True(t, Sampling{}.Keep("anything"), "the zero value keeps every event")
}

// Lines reads back the lines of one message, passing over other lines and
// text that is not JSON.
func TestLinesReadsBackTheLinesOfOneMessage(t *testing.T) {
	var buf bytes.Buffer
	l := jsonLogger(&buf, slog.LevelInfo)
	l.Info("batch processed", "records", 2)
	Published(context.Background(), l, Sampling{}, events.TopicTasks, events.TaskCreated, "e1", "task-1", 1, 10)
	buf.WriteString("not json\n")
	Published(context.Background(), l, Sampling{}, events.TopicTasks, events.TaskCreated, "e2", "task-2", 2, 20)
	type line struct {
		TaskID string `json:"taskId"`
		Offset int64  `json:"offset"`
	}
	got, err := Lines[line](buf.Bytes(), MsgPublished)
	require.NoError(t, err)
	assert.Equal(t, []line{{"task-1", 10}, {"task-2", 20}}, got)
}
