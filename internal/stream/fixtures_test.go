package stream_test

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

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

const (
	fixtureDir       = "../../testdata/msk"
	fixtureARN       = "arn:aws:kafka:us-east-1:123456789012:cluster/streamops/5f0e2b4a-9c7d-4e31-8a6b-2d1c0f9e8b7a-3"
	fixtureBootstrap = "b-1.streamops.q8x2rk.c3.kafka.us-east-1.amazonaws.com:9098," +
		"b-2.streamops.q8x2rk.c3.kafka.us-east-1.amazonaws.com:9098," +
		"b-3.streamops.q8x2rk.c3.kafka.us-east-1.amazonaws.com:9098"
)

// fixtureGen builds reproducible MSK batches: ids come from a seeded stream,
// partitions from the real key partitioner, offsets from per-partition
// counters.
type fixtureGen struct {
	rng     *rand.ChaCha8
	clock   time.Time
	offsets map[string]int64
}

func newFixtureGen(seed byte) *fixtureGen {
	return &fixtureGen{
		rng:     rand.NewChaCha8([32]byte{seed, 's', 't', 'r', 'e', 'a', 'm', 'o', 'p', 's'}),
		clock:   time.Date(2026, 1, 4, 1, 9, 27, 123e6, time.UTC),
		offsets: map[string]int64{},
	}
}

func (g *fixtureGen) uuid() string { return eventstest.UUIDFrom(g.rng) }

// now advances the clock by a few hundred milliseconds and returns it.
func (g *fixtureGen) now() time.Time {
	g.clock = g.clock.Add(time.Duration(150+g.rng.Uint64()%700) * time.Millisecond)
	return g.clock
}

// idOnPartition draws ids until prefix+id hashes to partition of topic.
func (g *fixtureGen) idOnPartition(prefix, topic string, partition int32) string {
	for {
		id := g.uuid()
		if expectedPartition(topic, []byte(prefix+id), int(bus.Partitions)) == partition {
			return id
		}
	}
}

// place gives r its key's partition (or partition, for a keyless record)
// and the next offset there; new partitions start at a believable offset.
func (g *fixtureGen) place(r *kgo.Record, partition int32) *kgo.Record {
	if r.Key != nil {
		r.Partition = expectedPartition(r.Topic, r.Key, int(bus.Partitions))
	} else {
		r.Partition = partition
	}
	tp := r.Topic + "-" + string(rune('0'+r.Partition))
	if _, ok := g.offsets[tp]; !ok {
		g.offsets[tp] = int64(10 + g.rng.Uint64()%90)
	}
	r.Offset = g.offsets[tp]
	g.offsets[tp]++
	return r
}

func (g *fixtureGen) record(t *testing.T, env events.Envelope) *kgo.Record {
	r, err := bus.NewRecord(env, "")
	require.NoError(t, err)
	return g.place(r, 0)
}

// expectedPartition is the partition Kafka's default (murmur2) partitioner
// chooses for key among n partitions.
func expectedPartition(topic string, key []byte, n int) int32 {
	return int32(kgo.StickyKeyPartitioner(nil).ForTopic(topic).Partition(&kgo.Record{Key: key}, n))
}

// headerMap is a record's headers by name.
func headerMap(hs []kgo.RecordHeader) map[string]string {
	m := make(map[string]string, len(hs))
	for _, h := range hs {
		m[h.Key] = string(h.Value)
	}
	return m
}

var fixtureGenerators = map[string]func(t *testing.T) []*kgo.Record{
	// A three-step workflow.created the processor runs, and a lifecycle
	// event of another workflow, on another partition, that it ignores.
	"workflows-batch.json": func(t *testing.T) []*kgo.Record {
		g := newFixtureGen(1)
		wfA := g.uuid()
		pA := expectedPartition(events.TopicWorkflows, []byte("wf-"+wfA), int(bus.Partitions))
		wfB := g.idOnPartition("wf-", events.TopicWorkflows, (pA+1)%bus.Partitions)
		return []*kgo.Record{
			g.record(t, eventstest.WorkflowCreated(g.uuid(), wfA, "Data Processing Pipeline", "high", g.now(), "validate", "transform", "store")),
			g.record(t, eventstest.WorkflowProcessing(g.uuid(), wfB, g.now(), "validate", 0)),
		}
	},
	// One task.created of every task type.
	"tasks-batch.json": func(t *testing.T) []*kgo.Record {
		g := newFixtureGen(2)
		return []*kgo.Record{
			g.record(t, eventstest.TaskCreated(g.uuid(), g.uuid(), "email_notification", g.now(), map[string]string{
				"recipient": "user@example.com", "subject": "Welcome to StreamOps", "template": "welcome_email"})),
			g.record(t, eventstest.TaskCreated(g.uuid(), g.uuid(), "data_export", g.now(), map[string]string{
				"format": "csv", "collection": "workflows", "destination": "s3://streamops-exports/2026-01-04/workflows.csv"})),
			g.record(t, eventstest.TaskCreated(g.uuid(), g.uuid(), "report_generation", g.now(), map[string]string{
				"reportType": "monthly_summary", "period": "2025-12", "recipient": "ops@example.com"})),
		}
	},
	// Four records on one partition: good, not JSON (a console producer
	// run without parse.key, so "key|value" landed as the value), schema
	// invalid (priority "urgent"), good. The poison must not block the
	// good record behind it.
	"poison-batch.json": func(t *testing.T) []*kgo.Record {
		g := newFixtureGen(3)
		const p = 1
		first := g.record(t, eventstest.WorkflowCreated(g.uuid(), g.idOnPartition("wf-", events.TopicWorkflows, p), "Nightly Import", "medium", g.now(), "validate", "store"))
		notJSON := g.place(&kgo.Record{
			Topic:     events.TopicWorkflows,
			Value:     []byte(`wf-test|{"eventType":"workflow.created","eventId":"test-1","timestamp":"2026-01-04T01:00:00Z","payload":{"workflowId":"wf-test","name":"Test","steps":["step1"],"priority":"low","createdAt":"2026-01-04T01:00:00Z"}}`),
			Timestamp: g.now(),
		}, p)
		urgent := g.record(t, eventstest.WorkflowCreated(g.uuid(), g.idOnPartition("wf-", events.TopicWorkflows, p), "Escalation", "urgent", g.now(), "validate", "transform"))
		last := g.record(t, eventstest.WorkflowCreated(g.uuid(), g.idOnPartition("wf-", events.TopicWorkflows, p), "Data Processing Pipeline", "low", g.now(), "validate", "transform", "store"))
		return []*kgo.Record{first, notJSON, urgent, last}
	},
}

// lambdaOrder marshals a KafkaEvent with its fields in the order Lambda
// sends them, so fixtures read like the real thing.
type lambdaOrder struct {
	EventSource      string                                `json:"eventSource"`
	EventSourceARN   string                                `json:"eventSourceArn"`
	BootstrapServers string                                `json:"bootstrapServers"`
	Records          map[string][]lambdaevents.KafkaRecord `json:"records"`
}

var numberArray = regexp.MustCompile(`\[\s*(-?\d+(?:,\s*-?\d+)*)\s*\]`)

func encodeFixture(t *testing.T, ev lambdaevents.KafkaEvent) []byte {
	b, err := json.MarshalIndent(lambdaOrder{ev.EventSource, ev.EventSourceARN, ev.BootstrapServers, ev.Records}, "", "  ")
	require.NoError(t, err)
	// Keep header byte arrays on one line.
	b = numberArray.ReplaceAllFunc(b, func(m []byte) []byte {
		return regexp.MustCompile(`,\s*`).ReplaceAll(bytes.Join(bytes.Fields(m), nil), []byte(", "))
	})
	return append(b, '\n')
}

func TestMSKFixturesAreReproducible(t *testing.T) {
	for name, gen := range fixtureGenerators {
		t.Run(name, func(t *testing.T) {
			want := encodeFixture(t, stream.ToKafkaEvent(gen(t), fixtureBootstrap, fixtureARN))
			path := filepath.Join(fixtureDir, name)
			if *streamtest.Update {
				require.NoError(t, os.WriteFile(path, want, 0o644))
			}
			got, err := os.ReadFile(path)
			require.NoError(t, err, "run: go test ./internal/bus -run TestMSKFixtures -update")
			assert.Equal(t, string(want), string(got), "fixture drifted from its generator; run with -update")
		})
	}
}

func loadFixture(t *testing.T, name string) ([]byte, lambdaevents.KafkaEvent) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(fixtureDir, name))
	require.NoError(t, err)
	var ev lambdaevents.KafkaEvent
	require.NoError(t, json.Unmarshal(raw, &ev))
	assert.Equal(t, "aws:kafka", ev.EventSource)
	assert.Equal(t, fixtureARN, ev.EventSourceARN)
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
	assert.Equal(t, expectedPartition(m.Topic, m.Key, 3), m.Partition, "partition of key %s", m.Key)
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
