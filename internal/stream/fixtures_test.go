package stream_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	lambdaevents "github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/events/eventstest"
	"github.com/streamops/streamops/internal/bus"
	"github.com/streamops/streamops/internal/stream"
	"github.com/streamops/streamops/internal/stream/streamtest"
)

// fixtureGen starts package stream's own generator; its key predates
// streamtest.NewGen's, and the fixtures it drew are checked in.
func fixtureGen(seed byte) *streamtest.Gen {
	return streamtest.NewGenKey([32]byte{seed, 's', 't', 'r', 'e', 'a', 'm', 'o', 'p', 's'})
}

// headerMap is a record's headers by name.
func headerMap(hs []kgo.RecordHeader) map[string]string {
	m := make(map[string]string, len(hs))
	for _, h := range hs {
		m[h.Key] = string(h.Value)
	}
	return m
}

var fixtureGenerators = streamtest.Fixtures{
	// A three-step workflow.created the processor runs, and a lifecycle
	// event of another workflow, on another partition, that it ignores.
	"workflows-batch.json": func(t *testing.T) lambdaevents.KafkaEvent {
		g := fixtureGen(1)
		wfA := g.UUID()
		pA := streamtest.PartitionOf(events.TopicWorkflows, []byte("wf-"+wfA))
		wfB := g.IDOnPartition("wf-", events.TopicWorkflows, (pA+1)%bus.Partitions)
		return streamtest.Batch(
			g.Record(t, eventstest.WorkflowCreated(g.UUID(), wfA, "Data Processing Pipeline", "high", g.Now().Time, "validate", "transform", "store")),
			g.Record(t, eventstest.WorkflowProcessing(g.UUID(), wfB, g.Now().Time, "validate", 0)),
		)
	},
	// One task.created of every task type.
	"tasks-batch.json": func(t *testing.T) lambdaevents.KafkaEvent {
		g := fixtureGen(2)
		return streamtest.Batch(
			g.Record(t, eventstest.TaskCreated(g.UUID(), g.UUID(), "email_notification", g.Now().Time, map[string]string{
				"recipient": "user@example.com", "subject": "Welcome to StreamOps", "template": "welcome_email"})),
			g.Record(t, eventstest.TaskCreated(g.UUID(), g.UUID(), "data_export", g.Now().Time, map[string]string{
				"format": "csv", "collection": "workflows", "destination": "s3://streamops-exports/2026-01-04/workflows.csv"})),
			g.Record(t, eventstest.TaskCreated(g.UUID(), g.UUID(), "report_generation", g.Now().Time, map[string]string{
				"reportType": "monthly_summary", "period": "2025-12", "recipient": "ops@example.com"})),
		)
	},
	// Four records on one partition: good, not JSON (a console producer
	// run without parse.key, so "key|value" landed as the value), schema
	// invalid (priority "urgent"), good. The poison must not block the
	// good record behind it.
	"poison-batch.json": func(t *testing.T) lambdaevents.KafkaEvent {
		g := fixtureGen(3)
		const p = 1
		first := g.Record(t, eventstest.WorkflowCreated(g.UUID(), g.IDOnPartition("wf-", events.TopicWorkflows, p), "Nightly Import", "medium", g.Now().Time, "validate", "store"))
		notJSON := g.Place(&kgo.Record{
			Topic:     events.TopicWorkflows,
			Value:     []byte(`wf-test|{"eventType":"workflow.created","eventId":"test-1","timestamp":"2026-01-04T01:00:00Z","payload":{"workflowId":"wf-test","name":"Test","steps":["step1"],"priority":"low","createdAt":"2026-01-04T01:00:00Z"}}`),
			Timestamp: g.Now().Time,
		}, p)
		urgent := g.Record(t, eventstest.WorkflowCreated(g.UUID(), g.IDOnPartition("wf-", events.TopicWorkflows, p), "Escalation", "urgent", g.Now().Time, "validate", "transform"))
		last := g.Record(t, eventstest.WorkflowCreated(g.UUID(), g.IDOnPartition("wf-", events.TopicWorkflows, p), "Data Processing Pipeline", "low", g.Now().Time, "validate", "transform", "store"))
		return streamtest.Batch(first, notJSON, urgent, last)
	},
}

func TestMSKFixturesAreReproducible(t *testing.T) {
	streamtest.CheckAll(t, fixtureGenerators)
}

func loadFixture(t *testing.T, name string) ([]byte, lambdaevents.KafkaEvent) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(streamtest.Dir, name))
	require.NoError(t, err)
	ev := streamtest.Load(t, name)
	assert.Equal(t, "aws:kafka", ev.EventSource)
	assert.Equal(t, streamtest.ARN, ev.EventSourceARN)
	return raw, ev
}

// roundTrip re-encodes decoded messages the way the local stack will hand
// them to a processor and checks nothing was lost.
func roundTrip(t *testing.T, raw []byte, ev lambdaevents.KafkaEvent, batches []stream.PartitionBatch) {
	t.Helper()
	var recs []*kgo.Record
	for _, b := range batches {
		for _, m := range b.Messages {
			recs = append(recs, m.Record())
		}
	}
	back, err := json.Marshal(stream.ToKafkaEvent(recs, ev.BootstrapServers, ev.EventSourceARN))
	require.NoError(t, err)
	assert.JSONEq(t, string(raw), string(back))
}

// assertSeedRecord checks what every good record of a fixture must be.
func assertSeedRecord(t *testing.T, m stream.Message) {
	t.Helper()
	require.NoError(t, m.Err)
	assert.Equal(t, m.Envelope.AggregateID(), string(m.Key))
	assert.Equal(t, m.Envelope.EventType.Topic(), m.Topic)
	assert.Equal(t, streamtest.PartitionOf(m.Topic, m.Key), m.Partition, "partition of key %s", m.Key)
	assert.True(t, m.Envelope.Timestamp.Equal(m.Timestamp), "record timestamp is the event timestamp")
	assert.Equal(t, map[string]string{"content-type": "application/json", "schema-version": "1.0.0"}, m.Headers)
	assert.Regexp(t, `^evt-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`, m.Envelope.EventID)
	assert.Regexp(t, `^(wf|task)-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`, string(m.Key))
	assert.Regexp(t, `"timestamp":"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z"`, string(m.Raw))
}

func TestWorkflowsFixtureHasACreatedWorkflowAndALifecycleEvent(t *testing.T) {
	raw, ev := loadFixture(t, "workflows-batch.json")
	batches := stream.DecodeKafkaEvent(ev, stream.WithValidator(rejectUrgent))
	require.Len(t, batches, 2, "two partitions")

	var types []events.Type
	for _, b := range batches {
		for _, m := range b.Messages {
			assertSeedRecord(t, m)
			types = append(types, m.Envelope.EventType)
			if m.Envelope.EventType == events.WorkflowCreated {
				var p struct {
					Steps    []string `json:"steps"`
					Priority string   `json:"priority"`
				}
				require.NoError(t, m.Envelope.DecodePayload(&p))
				assert.Equal(t, []string{"validate", "transform", "store"}, p.Steps)
			}
		}
	}
	assert.ElementsMatch(t, []events.Type{events.WorkflowCreated, events.WorkflowProcessing}, types)
	roundTrip(t, raw, ev, batches)
}

func TestTasksFixtureHasOneTaskOfEveryType(t *testing.T) {
	raw, ev := loadFixture(t, "tasks-batch.json")
	batches := stream.DecodeKafkaEvent(ev)
	var taskTypes []string
	for _, b := range batches {
		for _, m := range b.Messages {
			assertSeedRecord(t, m)
			assert.Equal(t, events.TaskCreated, m.Envelope.EventType)
			var p struct{ Type string }
			require.NoError(t, m.Envelope.DecodePayload(&p))
			taskTypes = append(taskTypes, p.Type)
		}
	}
	assert.ElementsMatch(t, []string{"email_notification", "data_export", "report_generation"}, taskTypes)
	roundTrip(t, raw, ev, batches)
}

func TestPoisonFixtureFlagsOnlyThePoisonRecords(t *testing.T) {
	raw, ev := loadFixture(t, "poison-batch.json")
	batches := stream.DecodeKafkaEvent(ev, stream.WithValidator(rejectUrgent))
	require.Len(t, batches, 1, "one partition")
	msgs := batches[0].Messages
	require.Len(t, msgs, 4)

	assertSeedRecord(t, msgs[0])
	assertSeedRecord(t, msgs[3])
	var de *stream.DecodeError
	require.ErrorAs(t, msgs[1].Err, &de)
	assert.Equal(t, stream.ReasonUndecodable, de.Reason)
	assert.Equal(t, "value is not JSON", de.Detail)
	require.ErrorAs(t, msgs[2].Err, &de)
	assert.Equal(t, stream.ReasonSchemaInvalid, de.Reason)
	for i := 1; i < len(msgs); i++ {
		assert.Equal(t, msgs[i-1].Offset+1, msgs[i].Offset, "offset order")
	}

	// Without a validator only the structurally broken record is poison.
	plain := stream.DecodeKafkaEvent(ev)[0].Messages
	assert.NoError(t, plain[2].Err)
	assert.Error(t, plain[1].Err)
	roundTrip(t, raw, ev, batches)
}
