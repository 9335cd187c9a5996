package streamtest

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/status"
	"github.com/streamops/streamops/internal/store"
)

// Poison is one kind of record that fails the same way on every
// redelivery: a processor dead-letters it and goes on with its batch. Every
// processor's test runs the whole list, so the kinds cannot drift apart.
type Poison struct {
	// Name names the kind.
	Name string
	// raw is the record's value, with CREATED standing for the processor's
	// *.created type and FAMILY for its prefix ("task"); empty: built from
	// a valid envelope with data (or on topic) instead.
	raw   string
	data  string
	topic string
}

// Poisons are the kinds of issue 15's class 2: undecodable, schema-invalid,
// an unknown type on the processor's own topic, unstorable (a NUL key, a
// number past Decimal128), and a topic the processor does not consume.
var Poisons = []Poison{
	{Name: "not JSON", raw: `{"eventType":`},
	{Name: "payload a JSON array", raw: `{"eventType":"CREATED","eventId":"evt-00000000-0000-4000-8000-000000000001","timestamp":"2026-01-04T01:09:27.123Z","schemaVersion":"1.0.0","payload":[]}`},
	{Name: "unknown event type on its topic", raw: `{"eventType":"FAMILY.teleported","eventId":"evt-00000000-0000-4000-8000-000000000002","timestamp":"2026-01-04T01:09:27.123Z","schemaVersion":"1.0.0","payload":{}}`},
	{Name: "a key the store cannot encode", data: `{"k\u0000":1}`},
	{Name: "a number no type holds exactly", data: `{"amount":1e7000}`},
	{Name: "a topic the processor does not own", topic: "payments"},
}

// Before returns the poison record placed just before good: on its topic,
// key and partition, at good's offset, which moves one on. valid builds
// the payload of good's *.created event with its free-form JSON (a
// workflow's input record, a task's data) set to data; nil data leaves it
// as it is.
func (p Poison) Before(tb testing.TB, g *Gen, good *kgo.Record, valid func(data json.RawMessage) events.Payload) *kgo.Record {
	tb.Helper()
	var r *kgo.Record
	switch {
	case p.raw != "":
		created := valid(nil).EventType()
		family, _, _ := strings.Cut(string(created), ".")
		value := strings.NewReplacer("CREATED", string(created), "FAMILY", family).Replace(p.raw)
		r = &kgo.Record{Topic: good.Topic, Key: good.Key, Value: []byte(value)}
	case p.data != "":
		r = g.Record(tb, g.Envelope(tb, valid(json.RawMessage(p.data)), APIMetadata))
	default:
		r = g.Record(tb, g.Envelope(tb, valid(nil), APIMetadata))
		r.Topic = p.topic
	}
	r.Partition, r.Offset = good.Partition, good.Offset
	good.Offset++
	return r
}

// PoisonCase is one processor's side of its poison test: the harness, and
// the *.created event of the one aggregate behind the poison, submitted
// through the API.
type PoisonCase struct {
	// Harness runs the processor.
	Harness *Harness
	// Valid builds the aggregate's *.created payload with its free-form
	// JSON set to data (nil: as it is), as Poison.Before takes it.
	Valid func(data json.RawMessage) events.Payload
	// Submit stores the projection of the good record's *.created event,
	// as the API did before publishing it.
	Submit func(good *kgo.Record)
	// Status is the aggregate's stored status.
	Status func() string
	// Completed is the status it ends in.
	Completed string
}

// RunPoisons runs every kind of Poisons as a subtest: setup builds the
// processor's case from a generator of the given seed, and the poison
// record goes just before the aggregate's valid *.created on its key. The
// poison never fails its batch, the aggregate behind it completes, and the
// poison is one visible dead letter carrying its reason and error.
func RunPoisons(t *testing.T, seed byte, setup func(t *testing.T, g *Gen) PoisonCase) {
	for _, kind := range Poisons {
		t.Run(kind.Name, func(t *testing.T) {
			g := NewGen(seed)
			c := setup(t, g)
			good := g.Record(t, g.Envelope(t, c.Valid(nil), APIMetadata))
			poison := kind.Before(t, g, good, c.Valid)
			c.Submit(good)

			require.NoError(t, c.Harness.Deliver(t, Batch(poison, good)), "a poison record never fails its batch")
			assert.Equal(t, c.Completed, c.Status(), "the aggregate behind it on the same key completes")
			stored := c.Harness.DeadLetters(t, store.DeadLetterQuery{Status: status.DeadLetterOpen})
			require.Len(t, stored, 1, "the poison record is a visible dead letter")
			assert.NotEmpty(t, stored[0].Reason)
			assert.NotEmpty(t, stored[0].Error)
		})
	}
}
