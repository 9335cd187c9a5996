package streamtest

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/seedtest"
)

// SeedExample is one event example of seed 003 as a record of its topic,
// keyed by its aggregate id as seed 003's producers key it.
type SeedExample struct {
	// Name says where in seed 003 the example is.
	Name string
	// Topic is the topic its event type belongs on.
	Topic string
	// Value is the example's JSON as testdata/seeds holds it, read by
	// seedtest's rules.
	Value string
}

// Seed003 are seed 003's event examples, read from testdata/seeds: every
// one of "Workflow Events", "Task Events", the "Example Kafka Message" and
// the "Publish Test Event". Two comments JSON cannot hold are filled in:
// the Kafka message's payload `{ /* ... */ }` is the workflow.created
// example's payload, and task.dead_letter's originalEvent payload
// `{ /* original task data */ }` is the task.created example's.
func Seed003(tb testing.TB) []SeedExample {
	tb.Helper()
	var out []SeedExample
	for _, t := range events.Types {
		if t == events.WebhookReceived || slices.Contains(events.OperationsTypes, t) { // StreamOps' own: no seed example
			continue
		}
		value := seedtest.JSON(tb, seedFile(t))
		if t == events.TaskDeadLetter {
			value = withPayload(tb, value, payloadOf(tb, events.TaskCreated), "payload", "originalEvent")
		}
		out = append(out, SeedExample{string(t), t.Topic(), string(value)})
	}
	msg := seedtest.JSObject(tb, "003_message_format.example_kafka_message.js")
	value, err := json.Marshal(msg["value"])
	if err != nil {
		tb.Fatalf("seed 003 Example Kafka Message: %v", err)
	}
	out = append(out, SeedExample{"Example Kafka Message", events.TopicWorkflows,
		string(withPayload(tb, value, payloadOf(tb, events.WorkflowCreated)))})
	return append(out, SeedTestPublish(tb))
}

// SeedTestPublish is seed 003's "Publish Test Event": what its kcat line
// sends to topic workflows under key wf-test.
func SeedTestPublish(tb testing.TB) SeedExample {
	tb.Helper()
	topic, _, value := seedtest.PublishTestEvent(tb)
	return SeedExample{"Publish Test Event", topic, string(value)}
}

// seedFile is the testdata/seeds file of t's example.
func seedFile(t events.Type) string {
	if t == events.TaskDeadLetter { // it holds a comment
		return "003_event." + string(t) + ".jsonc"
	}
	return "003_event." + string(t) + ".json"
}

// payloadOf is the payload of seed 003's example of t.
func payloadOf(tb testing.TB, t events.Type) json.RawMessage {
	var ex struct {
		Payload json.RawMessage `json:"payload"`
	}
	if err := json.Unmarshal(seedtest.JSON(tb, seedFile(t)), &ex); err != nil {
		tb.Fatalf("seed 003 example %s: %v", t, err)
	}
	return ex.Payload
}

// withPayload is the event value with the payload member of the object
// at path (the objects to descend into; none: the event's own) set.
func withPayload(tb testing.TB, value []byte, payload json.RawMessage, path ...string) []byte {
	tb.Helper()
	var doc map[string]any
	if err := json.Unmarshal(value, &doc); err != nil {
		tb.Fatalf("seed 003 example: %v", err)
	}
	obj := doc
	for _, k := range path {
		obj = obj[k].(map[string]any)
	}
	obj["payload"] = payload
	out, err := json.Marshal(doc)
	if err != nil {
		tb.Fatalf("seed 003 example: %v", err)
	}
	return out
}

// Record is the example as a record of its topic, keyed by the aggregate id
// of its payload (the seed's `wf-test|…` for the test publish), placed by
// g on the key's partition.
func (s SeedExample) Record(tb testing.TB, g *Gen) *kgo.Record {
	tb.Helper()
	var env events.Envelope
	if err := env.UnmarshalJSON([]byte(s.Value)); err != nil {
		tb.Fatalf("seed 003 example %s: %v", s.Name, err)
	}
	return g.Place(&kgo.Record{Topic: s.Topic, Key: []byte(env.AggregateID()), Value: []byte(s.Value)}, 0)
}

// SeedExamplesOf are the examples of topic.
func SeedExamplesOf(tb testing.TB, topic string) []SeedExample {
	tb.Helper()
	var out []SeedExample
	for _, s := range Seed003(tb) {
		if s.Topic == topic {
			out = append(out, s)
		}
	}
	return out
}
