package streamtest

import (
	"bytes"
	"encoding/json"
	"flag"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	lambdaevents "github.com/aws/aws-lambda-go/events"
	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/bus"
	"github.com/streamops/streamops/internal/stream"
	"github.com/streamops/streamops/internal/testenv"
)

// Update rewrites fixtures from their generators: go test ./... -update.
var Update = flag.Bool("update", false, "rewrite testdata/msk fixtures from their generators")

// Dir is testdata/msk as the processors' tests (two levels below the
// module root) reach it.
const Dir = "../../testdata/msk"

// APIMetadata is the metadata of an API submission, as the fixtures carry
// it.
var APIMetadata = &events.Metadata{Source: "api-gateway", UserID: events.Null, APIVersion: "1.0.0"}

// Fixture source of every MSK batch in testdata/msk.
const (
	ARN       = "arn:aws:kafka:us-east-1:123456789012:cluster/streamops/5f0e2b4a-9c7d-4e31-8a6b-2d1c0f9e8b7a-3"
	Bootstrap = "b-1.streamops.q8x2rk.c3.kafka.us-east-1.amazonaws.com:9098," +
		"b-2.streamops.q8x2rk.c3.kafka.us-east-1.amazonaws.com:9098," +
		"b-3.streamops.q8x2rk.c3.kafka.us-east-1.amazonaws.com:9098"
)

// Gen builds reproducible records: ids from a seeded stream, partitions
// from the key partitioner, offsets from per-partition counters.
type Gen struct {
	rng     *rand.ChaCha8
	clock   time.Time
	offsets map[string]int64
}

// NewGen starts a generator; the same seed gives the same records.
func NewGen(seed byte) *Gen {
	return NewGenKey([32]byte{seed, 'p', 'r', 'o', 'c', 'e', 's', 's', 'o', 'r', 's'})
}

// NewGenKey starts a generator from a whole ChaCha8 key, for fixtures
// drawn before NewGen's key existed (package stream's own).
func NewGenKey(key [32]byte) *Gen {
	return &Gen{
		rng:     rand.NewChaCha8(key),
		clock:   time.Date(2026, 1, 4, 1, 9, 27, 123e6, time.UTC),
		offsets: map[string]int64{},
	}
}

// UUID draws a v4 UUID from the seeded stream.
func (g *Gen) UUID() string {
	id, err := uuid.NewRandomFromReader(g.rng)
	if err != nil {
		panic(err)
	}
	return id.String()
}

// IDOnPartition draws UUIDs until prefix+id, as a key of topic, lands on
// partition.
func (g *Gen) IDOnPartition(prefix, topic string, partition int32) string {
	for {
		if id := g.UUID(); PartitionOf(topic, []byte(prefix+id)) == partition {
			return id
		}
	}
}

// Now advances the clock by a few hundred milliseconds and returns it.
func (g *Gen) Now() events.Time {
	g.clock = g.clock.Add(time.Duration(150+g.rng.Uint64()%700) * time.Millisecond)
	return events.At(g.clock)
}

// Envelope builds an event with a drawn eventId and the generator's clock.
func (g *Gen) Envelope(tb testing.TB, p events.Payload, meta *events.Metadata) events.Envelope {
	tb.Helper()
	env, err := events.NewEvent(p, meta)
	require.NoError(tb, err)
	env.EventID, env.Timestamp = events.EventIDPrefix+g.UUID(), g.Now()
	return env
}

// Record turns env into its Kafka record, placed on its key's partition at
// the partition's next offset.
func (g *Gen) Record(tb testing.TB, env events.Envelope) *kgo.Record {
	tb.Helper()
	r, err := bus.NewRecord(env, "")
	require.NoError(tb, err)
	r.Timestamp = env.Timestamp.Time // as if produced when it happened
	return g.Place(r, 0)
}

// Place gives r its key's partition (partition, for a keyless record) and
// that partition's next offset.
func (g *Gen) Place(r *kgo.Record, partition int32) *kgo.Record {
	r.Partition = partition
	if r.Key != nil {
		r.Partition = PartitionOf(r.Topic, r.Key)
	}
	tp := r.Topic + "-" + string(rune('0'+r.Partition))
	if _, ok := g.offsets[tp]; !ok {
		g.offsets[tp] = int64(10 + g.rng.Uint64()%90)
	}
	r.Offset = g.offsets[tp]
	g.offsets[tp]++
	return r
}

// PartitionOf is the partition the producer sends key to.
func PartitionOf(topic string, key []byte) int32 {
	return int32(kgo.StickyKeyPartitioner(nil).ForTopic(topic).Partition(&kgo.Record{Key: key}, int(bus.Partitions)))
}

// Batch is records as Lambda delivers them.
func Batch(recs ...*kgo.Record) lambdaevents.KafkaEvent {
	return stream.ToKafkaEvent(recs, Bootstrap, ARN)
}

// lambdaOrder marshals a KafkaEvent with its fields in Lambda's order.
type lambdaOrder struct {
	EventSource      string                                `json:"eventSource"`
	EventSourceARN   string                                `json:"eventSourceArn"`
	BootstrapServers string                                `json:"bootstrapServers"`
	Records          map[string][]lambdaevents.KafkaRecord `json:"records"`
}

var numberArray = regexp.MustCompile(`\[\s*(-?\d+(?:,\s*-?\d+)*)\s*\]`)

// Encode renders ev as a fixture file: Lambda's field order, header byte
// arrays on one line.
func Encode(tb testing.TB, ev lambdaevents.KafkaEvent) []byte {
	tb.Helper()
	b, err := json.MarshalIndent(lambdaOrder{ev.EventSource, ev.EventSourceARN, ev.BootstrapServers, ev.Records}, "", "  ")
	require.NoError(tb, err)
	b = numberArray.ReplaceAllFunc(b, func(m []byte) []byte {
		return regexp.MustCompile(`,\s*`).ReplaceAll(bytes.Join(bytes.Fields(m), nil), []byte(", "))
	})
	return append(b, '\n')
}

// Fixtures are the generators of fixture files, by file name.
type Fixtures map[string]func(t *testing.T) lambdaevents.KafkaEvent

// Submitted is the fixture of one event submitted through the API: the
// payload built by a generator of seed, placed on its key's partition.
func Submitted(seed byte, payload func(tb testing.TB, g *Gen) events.Payload) func(t *testing.T) lambdaevents.KafkaEvent {
	return func(t *testing.T) lambdaevents.KafkaEvent {
		g := NewGen(seed)
		return Batch(g.Record(t, g.Envelope(t, payload(t, g), APIMetadata)))
	}
}

// CheckAll compares every fixture file in Dir with what its generator
// builds, one subtest each, rewriting the files first when -update is set.
func CheckAll(t *testing.T, fixtures Fixtures) {
	t.Helper()
	for name, gen := range fixtures {
		t.Run(name, func(t *testing.T) {
			want := Encode(t, gen(t))
			path := filepath.Join(Dir, name)
			if *Update {
				require.NoError(t, os.WriteFile(path, want, 0o644))
			}
			got, err := os.ReadFile(path)
			require.NoError(t, err, "generate it with: go test -run Fixtures -update")
			assert.Equal(t, string(want), string(got), "%s drifted from its generator; run with -update", name)
		})
	}
}

// Load reads the fixture batch Dir/name.
func Load(tb testing.TB, name string) lambdaevents.KafkaEvent {
	tb.Helper()
	raw, err := os.ReadFile(filepath.Join(Dir, name))
	require.NoError(tb, err)
	var ev lambdaevents.KafkaEvent
	require.NoError(tb, json.Unmarshal(raw, &ev))
	return ev
}

// FromTopic turns the records a test read back from the broker into the
// batch Lambda would deliver, keeping only events of the given types.
func FromTopic(recs []*kgo.Record, types ...events.Type) lambdaevents.KafkaEvent {
	var keep []*kgo.Record
	for _, r := range recs {
		var head struct {
			EventType events.Type `json:"eventType"`
		}
		if json.Unmarshal(r.Value, &head) == nil {
			for _, t := range types {
				if head.EventType == t {
					keep = append(keep, r)
				}
			}
		}
	}
	return Batch(keep...)
}

// Invocations splits records into the batches Lambda would deliver,
// perInvocation records at a time.
func Invocations(recs []*kgo.Record, perInvocation int) []lambdaevents.KafkaEvent {
	var out []lambdaevents.KafkaEvent
	for start := 0; start < len(recs); start += perInvocation {
		out = append(out, Batch(recs[start:min(start+perInvocation, len(recs))]...))
	}
	return out
}

// Round is one round of a processor benchmark, set up with the timer
// stopped: the records to deliver, how to deliver a batch, the store's
// command counter, and the store and broker the processor writes to (for
// the floor, BenchProcessorFloor).
type Round struct {
	Records  []*kgo.Record
	Deliver  func(tb testing.TB, ev lambdaevents.KafkaEvent) error
	Commands func() int64
	Env      *testenv.Env
}

// BenchProcessor runs b.N rounds of n records each, delivered
// perInvocation at a time, timing only the deliveries, and reports store
// commands per record (the cost on MongoDB) and records per second.
func BenchProcessor(b *testing.B, n, perInvocation int, round func(b *testing.B, i int) Round) {
	var commands int64
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		r := round(b, i)
		batches := Invocations(r.Records, perInvocation)
		before := r.Commands()
		b.StartTimer()
		for _, ev := range batches {
			if err := r.Deliver(b, ev); err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		commands += r.Commands() - before
		b.StartTimer()
	}
	records := float64(b.N * n)
	b.ReportMetric(float64(commands)/records, "commands/record")
	b.ReportMetric(records/b.Elapsed().Seconds(), "records/s")
}

// Payload decodes e's payload as T.
func Payload[T any](tb testing.TB, e events.Envelope) T {
	tb.Helper()
	p, err := events.PayloadAs[T](e)
	require.NoError(tb, err)
	return p
}
