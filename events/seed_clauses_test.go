package events_test

import (
	"encoding/json"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/seedtest"
)

// seedExample is the file of testdata/seeds holding seed 003's example of
// typ (the task.dead_letter one keeps its /* original task data */
// comment, so it is a .jsonc).
func seedExample(typ events.Type) string {
	if typ == events.TaskDeadLetter {
		return "003_event." + string(typ) + ".jsonc"
	}
	return "003_event." + string(typ) + ".json"
}

// seed003Types are the event types seed 003 gives an example of: every
// type of the catalog but webhook.received and the operational events,
// which are StreamOps' own.
func seed003Types() []events.Type {
	return slices.DeleteFunc(slices.Clone(events.Types), func(t events.Type) bool {
		return t == events.WebhookReceived || slices.Contains(events.OperationsTypes, t)
	})
}

// TestSeed003EventExamplesAreAcceptedAsWritten reads each of seed 003's
// ten event examples as written (the dead letter's comment stripped: its
// originalEvent.payload is {}) and requires the catalog to accept it,
// decode it as its type and keep every field through the typed payload.
func TestSeed003EventExamplesAreAcceptedAsWritten(t *testing.T) {
	for _, typ := range seed003Types() {
		t.Run(string(typ), func(t *testing.T) {
			raw := seedtest.JSON(t, seedExample(typ))
			require.NoError(t, events.Validate(raw))
			e, err := events.Decode(raw)
			require.NoError(t, err)
			assert.Equal(t, typ, e.EventType)
			out, err := json.Marshal(e)
			require.NoError(t, err)
			assert.JSONEq(t, string(raw), string(out), "the envelope keeps the example as written")
			typed, err := typedRoundTrip[typ](e)
			require.NoError(t, err)
			assert.JSONEq(t, string(e.Payload), string(typed), "the typed payload keeps every field")
		})
	}
}

// TestSeed003FixturesAreTheSeedExamples holds testdata/events (what the
// other tests of the catalog read) to seed 003's examples: the same JSON,
// except the dead letter, whose fixture fills the seed's /* original task
// data */ with the task.created example's payload.
func TestSeed003FixturesAreTheSeedExamples(t *testing.T) {
	for _, typ := range seed003Types() {
		t.Run(string(typ), func(t *testing.T) {
			want := seedtest.JSON(t, seedExample(typ))
			got := readFixture(t, string(typ)+".json")
			if typ == events.TaskDeadLetter {
				var created, dl map[string]any
				seedtest.Unmarshal(t, seedExample(events.TaskCreated), &created)
				require.NoError(t, json.Unmarshal(want, &dl))
				original := dl["payload"].(map[string]any)["originalEvent"].(map[string]any)
				require.Empty(t, original["payload"], "the seed leaves the original task data out")
				original["payload"] = created["payload"]
				want, _ = json.Marshal(dl)
			}
			assert.JSONEq(t, string(want), string(got))
		})
	}
}

// seedField is one field of a seed 003 "Payload Fields" block.
type seedField struct {
	name, typ string
	required  bool
	enum      []string
}

var (
	fieldLine = regexp.MustCompile(`^\s{2}(\w+): (.+?)( \(required\))?$`)
	enumLine  = regexp.MustCompile(`^\s+- Enum: (.+)$`)
)

// payloadFields parses a seed 003 "Payload Fields" block.
func payloadFields(t *testing.T, name string) []seedField {
	var out []seedField
	for _, line := range strings.Split(string(seedtest.Read(t, name)), "\n") {
		if m := fieldLine.FindStringSubmatch(line); m != nil {
			out = append(out, seedField{name: m[1], typ: m[2], required: m[3] != ""})
		} else if m := enumLine.FindStringSubmatch(line); m != nil {
			for _, v := range strings.Split(m[1], "|") {
				out[len(out)-1].enum = append(out[len(out)-1].enum, strings.Trim(strings.TrimSpace(v), `"`))
			}
		}
	}
	require.NotEmpty(t, out, name)
	return out
}

// payloadSchema is the payload part of the event type's JSON Schema.
type payloadSchema struct {
	Required   []string `json:"required"`
	Properties map[string]struct {
		Type string   `json:"type"`
		Enum []string `json:"enum"`
		Ref  string   `json:"$ref"`
	} `json:"properties"`
}

// producedEnum is the enum of a payload property as StreamOps produces it:
// the schema's own, or, for a property that refers to a definition the
// mode decides (the task type), produce mode's, since consumers accept any
// value there (seed 003's evolution rule) and producers only the seed's.
func producedEnum(t *testing.T, s payloadSchema, field string) []string {
	p := s.Properties[field]
	def, ok := strings.CutPrefix(p.Ref, "common.json#/$defs/")
	if p.Enum != nil || !ok {
		return p.Enum
	}
	require.Equal(t, "taskType", def, "the one definition the mode decides")
	return events.TaskTypeNames() // what compileSchemas fills produce mode's taskType with
}

// taskTypeDeviation is the clause cell of docs/conformance.md's deviation
// row that names the task types StreamOps adds to seed 003's.
const taskTypeDeviation = "task.created `type` enum"

// checkAddedTaskTypes holds events.TaskTypes to seed 003's task type
// enum: the seed's types first, in its order, and each type after them a
// deviation named in docs/conformance.md's row taskTypeDeviation.
func checkAddedTaskTypes(t *testing.T, seed, produced []string) {
	require.GreaterOrEqual(t, len(produced), len(seed), "events.TaskTypes keeps seed 003's types")
	assert.Equal(t, seed, produced[:len(seed)], "events.TaskTypes starts with seed 003's types, in its order")
	added := produced[len(seed):]
	if len(added) == 0 {
		return
	}
	row := seedtest.DeviationRow(t, "003", taskTypeDeviation)
	for _, typ := range added {
		assert.Contains(t, row, "`"+typ+"`",
			"task type %q is not seed 003's: name it in the deviation row %q of docs/conformance.md", typ, taskTypeDeviation)
	}
}

func schemaOf(t *testing.T, typ events.Type) payloadSchema {
	raw, err := os.ReadFile("schemas/" + string(typ) + ".json")
	require.NoError(t, err)
	var s struct {
		Properties struct {
			Payload payloadSchema `json:"payload"`
		} `json:"properties"`
	}
	require.NoError(t, json.Unmarshal(raw, &s))
	return s.Properties.Payload
}

// jsonFields lists the JSON names of v's fields.
func jsonFields(v any) []string {
	var out []string
	rt := reflect.TypeOf(v)
	for i := range rt.NumField() {
		if name, _, _ := strings.Cut(rt.Field(i).Tag.Get("json"), ","); name != "" && name != "-" {
			out = append(out, name)
		}
	}
	return out
}

// jsonType is the seed's name of the JSON type of v.
func jsonType(v any) string {
	switch x := v.(type) {
	case string:
		return "string"
	case float64:
		if x == float64(int64(x)) {
			return "integer"
		}
		return "number"
	case map[string]any:
		return "object"
	case []any:
		if len(x) > 0 && jsonType(x[0]) == "string" {
			return "array of strings"
		}
		return "array"
	}
	return "null"
}

// testPayloadFields checks one seed 003 "Payload Fields" block: every field
// is in the example with its type, in the typed payload, required by the
// event's schema (and a payload without it is refused, naming it), and an
// enum is the schema's enum exactly; a value outside it is refused.
func testPayloadFields(t *testing.T, typ events.Type, block string, payload any) {
	fields := payloadFields(t, block)
	schema := schemaOf(t, typ)
	var example struct {
		Payload map[string]any `json:"payload"`
	}
	seedtest.Unmarshal(t, seedExample(typ), &example)
	for _, f := range fields {
		t.Run(f.name, func(t *testing.T) {
			assert.Equal(t, f.typ, jsonType(example.Payload[f.name]), "the seed's example gives %s its type", f.name)
			assert.Contains(t, jsonFields(payload), f.name, "the typed payload has %s", f.name)
			if f.required {
				assert.Contains(t, schema.Required, f.name, "the schema requires %s", f.name)
				without := withPayload(t, typ, func(p map[string]any) { delete(p, f.name) })
				var verr *events.ValidationError
				require.ErrorAs(t, events.Validate(without), &verr, "a %s without %s", typ, f.name)
				assert.Contains(t, verr.Error(), f.name)
			}
			if f.enum != nil {
				produced := producedEnum(t, schema, f.name)
				if typ == events.TaskCreated && f.name == "type" {
					checkAddedTaskTypes(t, f.enum, produced)
				} else {
					assert.Equal(t, f.enum, produced)
				}
				for _, v := range f.enum {
					assert.NoError(t, events.Validate(withPayload(t, typ, func(p map[string]any) { p[f.name] = v })), v)
				}
				assert.Error(t, events.Validate(withPayload(t, typ, func(p map[string]any) { p[f.name] = "urgent" })), "a producer keeps to the seed's enum")
			}
		})
	}
	assert.Len(t, schema.Required, len(fields), "the schema requires no field the seed does not list")
}

// withPayload is seed 003's example of typ with its payload changed by edit.
func withPayload(t *testing.T, typ events.Type, edit func(map[string]any)) []byte {
	var doc map[string]any
	seedtest.Unmarshal(t, seedExample(typ), &doc)
	edit(doc["payload"].(map[string]any))
	out, err := json.Marshal(doc)
	require.NoError(t, err)
	return out
}

// TestSeed003WorkflowCreatedPayloadFields is seed 003's workflow.created
// "Payload Fields": workflowId, name, steps, priority (low | medium |
// high), createdAt, all required. The wf-{uuid} format is what StreamOps
// generates (TestNewIDsCarryTheSeedPrefixesAndAV4UUID); consumers take
// the ids they are given, as the seed's own test event ("wf-test") needs.
func TestSeed003WorkflowCreatedPayloadFields(t *testing.T) {
	testPayloadFields(t, events.WorkflowCreated, "003_event.workflow.created.payload_fields.txt", events.WorkflowCreatedPayload{})
}

// TestSeed003TaskCreatedPayloadFields is seed 003's task.created "Payload
// Fields": taskId, type (email_notification | data_export |
// report_generation), data, retryCount, maxRetries, createdAt, all
// required.
func TestSeed003TaskCreatedPayloadFields(t *testing.T) {
	testPayloadFields(t, events.TaskCreated, "003_event.task.created.payload_fields.txt", events.TaskCreatedPayload{})
}

// TestSeed003EnumsAreTheCatalogs holds the catalog's Go constants to seed
// 003's enums: the priorities and task types.
func TestSeed003EnumsAreTheCatalogs(t *testing.T) {
	enums := map[string][]string{}
	for _, block := range []string{"003_event.workflow.created.payload_fields.txt", "003_event.task.created.payload_fields.txt"} {
		for _, f := range payloadFields(t, block) {
			if f.enum != nil {
				enums[f.name] = f.enum
			}
		}
	}
	assert.Equal(t, []string{string(events.PriorityLow), string(events.PriorityMedium), string(events.PriorityHigh)}, enums["priority"])
	assert.Equal(t, []string{string(events.TaskEmailNotification), string(events.TaskDataExport), string(events.TaskReportGeneration)}, enums["type"])
}

// TestSeed003BaseEventStructure is seed 003's "Base Event Structure":
// eventType, eventId, timestamp, payload and metadata, metadata optional
// ("// Optional metadata"), the rest required. schemaVersion is the seed's
// "Future" field, which StreamOps writes already (a deviation, optional
// on input).
func TestSeed003BaseEventStructure(t *testing.T) {
	types := seedtest.Types(t, "003_base_event_structure.js")
	assert.Equal(t, map[string]string{"eventType": "string", "eventId": "string", "timestamp": "string", "payload": "object", "metadata": "object"}, types)

	full, err := json.Marshal(events.Envelope{EventType: events.WorkflowCreated, EventID: "evt-1", Payload: json.RawMessage(`{}`),
		Timestamp: events.Now(), SchemaVersion: events.SchemaVersion, Metadata: &events.Metadata{Source: "s"}})
	require.NoError(t, err)
	var keys map[string]any
	require.NoError(t, json.Unmarshal(full, &keys))
	for k := range types {
		assert.Contains(t, keys, k)
	}
	assert.Contains(t, keys, "schemaVersion", "the seed's future field, written already")

	raw, err := os.ReadFile("schemas/common.json")
	require.NoError(t, err)
	var common struct {
		Defs struct {
			Envelope struct {
				Required []string `json:"required"`
			} `json:"envelope"`
		} `json:"$defs"`
	}
	require.NoError(t, json.Unmarshal(raw, &common))
	assert.ElementsMatch(t, []string{"eventType", "eventId", "timestamp", "payload"}, common.Defs.Envelope.Required)
}

// TestSeed003EventMetadataFields is seed 003's "Event Metadata": source,
// userId (string | null), apiVersion, processorId, traceId, correlationId,
// each written under its seed name. replayOf, partnerId and attempt are StreamOps'
// additions (docs/conformance.md).
func TestSeed003EventMetadataFields(t *testing.T) {
	types := seedtest.Types(t, "003_event_metadata.js")
	want := map[string]string{}
	for k, v := range types {
		want[strings.TrimPrefix(k, "metadata.")] = v
	}
	assert.Equal(t, map[string]string{"source": "string", "userId": "string | null", "apiVersion": "string",
		"processorId": "string", "traceId": "string", "correlationId": "string"}, want)
	fields := jsonFields(events.Metadata{})
	for k := range want {
		assert.Contains(t, fields, k)
	}
	assert.ElementsMatch(t, []string{"replayOf", "partnerId", "attempt"}, slices.DeleteFunc(fields, func(f string) bool { _, ok := want[f]; return ok }),
		"the fields beyond the seed's are the ones docs/conformance.md lists")

	for _, userID := range []string{`null`, `"user-7"`} {
		raw := seedtest.JSON(t, seedExample(events.WorkflowCreated))
		raw = []byte(strings.Replace(string(raw), `"userId": null`, `"userId": `+userID, 1))
		assert.NoError(t, events.Validate(raw), "userId %s", userID)
	}
}

// TestSeed003TopicEventTypes is seed 003's "Event Types" list of each
// topic: each type is published on its topic, and every type of the
// catalog but webhook.received (never published) and the operational
// events (on the operations topic, not in the seed) is on one of them.
func TestSeed003TopicEventTypes(t *testing.T) {
	item := regexp.MustCompile("^- `([a-z_.]+)` - ")
	var all []events.Type
	for _, topic := range []string{events.TopicWorkflows, events.TopicTasks} {
		for _, line := range strings.Split(string(seedtest.Read(t, "003_topic."+topic+".event_types_and_key.md")), "\n") {
			if m := item.FindStringSubmatch(line); m != nil {
				typ := events.Type(m[1])
				all = append(all, typ)
				assert.True(t, typ.Known(), typ)
				assert.Equal(t, topic, typ.Topic(), typ)
			}
		}
	}
	assert.ElementsMatch(t, seed003Types(), all)
	assert.Empty(t, events.WebhookReceived.Topic())
	for _, typ := range events.OperationsTypes {
		assert.Equal(t, events.TopicOperations, typ.Topic(), typ)
	}
}

// TestSeed003PartitionKeys is each topic's "Partition Key" (workflowId,
// taskId): the aggregate id of every seed example, which the producer keys
// its record by (bus's TestSeed003KafkaMessageExample), is that payload
// field.
func TestSeed003PartitionKeys(t *testing.T) {
	keyLine := regexp.MustCompile("^\\*\\*Partition Key\\*\\*: `(\\w+)`")
	keys := map[string]string{}
	for _, topic := range []string{events.TopicWorkflows, events.TopicTasks} {
		for _, line := range strings.Split(string(seedtest.Read(t, "003_topic."+topic+".event_types_and_key.md")), "\n") {
			if m := keyLine.FindStringSubmatch(line); m != nil {
				keys[topic] = m[1]
			}
		}
	}
	require.Equal(t, map[string]string{events.TopicWorkflows: "workflowId", events.TopicTasks: "taskId"}, keys)
	for _, typ := range seed003Types() {
		t.Run(string(typ), func(t *testing.T) {
			e, err := events.Decode(seedtest.JSON(t, seedExample(typ)))
			require.NoError(t, err)
			var p map[string]any
			require.NoError(t, json.Unmarshal(e.Payload, &p))
			assert.Equal(t, p[keys[typ.Topic()]], e.AggregateID())
		})
	}
}
