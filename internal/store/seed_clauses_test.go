package store_test

import (
	"encoding/json"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.mongodb.org/mongo-driver/bson"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/seedtest"
	"github.com/streamops/streamops/internal/status"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/store/storetest"
)

// TestSeed000PartnerEventDocumentAsWritten stores seed 000's partner_events
// example (its "// Flexible JSON" comment stripped: entity_data {}) and
// reads it back field for field, on the engine of the test process.
func TestSeed000PartnerEventDocumentAsWritten(t *testing.T) {
	raw := seedtest.JSON(t, "000_schema_specification.partner_events.jsonc")
	var ev store.PartnerEvent
	require.NoError(t, json.Unmarshal(raw, &ev))
	// The store stamps lastUpdatedTime with its clock: the example's instant.
	at := time.UnixMilli(1655292885101).UTC()
	s := storetest.Open(t, store.Config{Now: func() time.Time { return at }})
	_, err := s.InsertPartnerEvent(t.Context(), ev)
	require.NoError(t, err)
	got, err := s.GetPartnerEvent(t.Context(), ev.ID)
	require.NoError(t, err)
	out, err := json.Marshal(got)
	require.NoError(t, err)
	assert.JSONEq(t, string(raw), string(out))
}

// seed000Fields parses a seed 000 "Field Definitions" table: each line is
// the field, its type and its description run together.
func seed000Fields(t *testing.T, name string) map[string][2]string {
	row := regexp.MustCompile(`^(\w+?)(Integer|String|Object)(.*)$`)
	out := map[string][2]string{}
	for _, line := range strings.Split(string(seedtest.Read(t, name)), "\n")[1:] {
		if m := row.FindStringSubmatch(line); m != nil {
			out[m[1]] = [2]string{m[2], m[3]}
		}
	}
	return out
}

// kindOf is the seed 000 type of a Go field.
func kindOf(f reflect.StructField) string {
	switch f.Type.Kind() {
	case reflect.Int:
		return "Integer"
	case reflect.String:
		return "String"
	case reflect.Map, reflect.Struct:
		return "Object"
	}
	return f.Type.String()
}

// bsonFields maps the bson names of v's fields to the fields.
func bsonFields(v any) map[string]reflect.StructField {
	out := map[string]reflect.StructField{}
	rt := reflect.TypeOf(v)
	for i := range rt.NumField() {
		name, _, _ := strings.Cut(rt.Field(i).Tag.Get("bson"), ",")
		out[name] = rt.Field(i)
	}
	return out
}

// TestSeed000FieldDefinitions is seed 000's "Field Definitions": each core
// and entity_metadata field under its name with its type, event_status one
// of PENDING, PROCESSING, SUCCESS, FAILED and event_direction IN or OUT.
func TestSeed000FieldDefinitions(t *testing.T) {
	core := seed000Fields(t, "000_field_definitions.core_event_fields.txt")
	meta := seed000Fields(t, "000_field_definitions.entity_metadata.txt")
	require.Len(t, core, 5)
	require.Len(t, meta, 5)
	for tbl, v := range map[string]struct {
		fields map[string][2]string
		doc    any
	}{"core": {core, store.PartnerEvent{}}, "entity_metadata": {meta, store.PartnerEntityMetadata{}}} {
		have := bsonFields(v.doc)
		for name, def := range v.fields {
			f, ok := have[name]
			if assert.True(t, ok, "%s field %s", tbl, name) {
				assert.Equal(t, def[0], kindOf(f), "%s field %s", tbl, name)
			}
		}
	}
	assert.Equal(t, "Processing status: "+strings.Join([]string{status.PartnerPending, status.PartnerProcessing,
		status.PartnerSuccess, status.PartnerFailed}, ", "), core["event_status"][1])
	assert.Equal(t, "IN (from partner) or OUT (to partner)", core["event_direction"][1])
	assert.Equal(t, [2]string{"IN", "OUT"}, [2]string{status.DirectionIn, status.DirectionOut})
}

// TestSeed001ReplayFilterToMongoQuery is seed 001's
// ReplayFilter.to_mongo_query, field by field: the query ToQuery builds is
// the one the seed's code builds for the same filter.
func TestSeed001ReplayFilterToMongoQuery(t *testing.T) {
	start := time.Date(2026, 1, 4, 1, 0, 0, 0, time.UTC)
	end := start.Add(time.Hour)
	tests := []struct {
		name   string
		filter store.ReplayFilter
		want   bson.M
	}{
		{"empty", store.ReplayFilter{}, bson.M{}},
		{"event_ids", store.ReplayFilter{EventIDs: []string{"evt-1", "evt-2"}}, bson.M{"event_id": bson.M{"$in": []string{"evt-1", "evt-2"}}}},
		{"execution_id", store.ReplayFilter{ExecutionID: "exec-1"}, bson.M{"execution_id": "exec-1"}},
		{"aggregate_id", store.ReplayFilter{AggregateID: "wf-1"}, bson.M{"aggregate_id": "wf-1"}},
		{"event_types", store.ReplayFilter{EventTypes: []string{"workflow.created"}}, bson.M{"event_type": bson.M{"$in": []string{"workflow.created"}}}},
		{"exclude_event_types", store.ReplayFilter{ExcludeEventTypes: []string{"task.failed"}}, bson.M{"event_type": bson.M{"$nin": []string{"task.failed"}}}},
		{"event_types and exclude_event_types", store.ReplayFilter{EventTypes: []string{"workflow.created"}, ExcludeEventTypes: []string{"task.failed"}},
			bson.M{"event_type": bson.M{"$in": []string{"workflow.created"}, "$nin": []string{"task.failed"}}}},
		{"start_time", store.ReplayFilter{StartTime: &start}, bson.M{"timestamp": bson.M{"$gte": start}}},
		{"end_time", store.ReplayFilter{EndTime: &end}, bson.M{"timestamp": bson.M{"$lte": end}}},
		{"start_time and end_time", store.ReplayFilter{StartTime: &start, EndTime: &end}, bson.M{"timestamp": bson.M{"$gte": start, "$lte": end}}},
		{"user_id", store.ReplayFilter{UserID: "user-7"}, bson.M{"metadata.user_id": "user-7"}},
		{"service_name", store.ReplayFilter{ServiceName: "api-gateway"}, bson.M{"metadata.service_name": "api-gateway"}},
	}
	fields := regexp.MustCompile(`(?m)^    (\w+): `).FindAllStringSubmatch(string(seedtest.Read(t, "001_replay_filter.py")), -1)
	require.Len(t, fields, 9, "the seed's filter fields")
	covered := map[string]bool{}
	for _, tt := range tests {
		covered[tt.name] = true
	}
	for _, f := range fields {
		assert.True(t, covered[f[1]], "a case for the seed's field %s", f[1])
		assert.Contains(t, string(seedtest.Read(t, "001_replay_filter.py")), "if self."+f[1]+":", "to_mongo_query reads %s", f[1])
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.filter.ToQuery())
		})
	}
}

// TestSeed001ReplayFilterIsEmpty is seed 001's is_empty: every field but
// exclude_event_types makes a filter non-empty.
func TestSeed001ReplayFilterIsEmpty(t *testing.T) {
	at := time.Now()
	tests := map[string]store.ReplayFilter{
		"event_ids": {EventIDs: []string{"evt-1"}}, "execution_id": {ExecutionID: "x"}, "aggregate_id": {AggregateID: "x"},
		"event_types": {EventTypes: []string{"x"}}, "start_time": {StartTime: &at}, "end_time": {EndTime: &at},
		"user_id": {UserID: "x"}, "service_name": {ServiceName: "x"},
	}
	listed := regexp.MustCompile(`(?m)^\s+self\.(\w+),$`).FindAllStringSubmatch(string(seedtest.Read(t, "001_replay_filter.py")), -1)
	require.Len(t, listed, len(tests))
	for _, l := range listed {
		f, ok := tests[l[1]]
		require.True(t, ok, l[1])
		assert.False(t, f.IsEmpty(), l[1])
	}
	assert.True(t, store.ReplayFilter{}.IsEmpty())
	assert.True(t, store.ReplayFilter{ExcludeEventTypes: []string{"task.failed"}}.IsEmpty(), "the seed's is_empty leaves exclude_event_types out")
}

// TestSeed001ReplayFilterSelectsOnEveryEngine runs each field of seed
// 001's filter against stored events on the engine of the test process:
// each selects exactly the events the seed's query names.
func TestSeed001ReplayFilterSelectsOnEveryEngine(t *testing.T) {
	base := time.Date(2026, 1, 4, 1, 0, 0, 0, time.UTC)
	s := storetest.Open(t, store.Config{Now: func() time.Time { return base }})
	mk := func(typ events.Type, agg string, at time.Duration, meta *events.Metadata) events.Envelope {
		key := "workflowId"
		if typ.Topic() == events.TopicTasks {
			key = "taskId"
		}
		payload, _ := json.Marshal(map[string]any{key: agg})
		return events.Envelope{EventType: typ, EventID: events.NewEventID(), Timestamp: events.At(base.Add(at)),
			SchemaVersion: events.SchemaVersion, Payload: payload, Metadata: meta}
	}
	evs := []events.Envelope{
		mk(events.WorkflowCreated, "wf-a", 0, &events.Metadata{Source: "api-gateway", UserID: events.String("user-7"), CorrelationID: "exec-1"}),
		mk(events.WorkflowCompleted, "wf-a", time.Minute, &events.Metadata{Source: "event-processor", CorrelationID: "exec-1"}),
		mk(events.TaskCreated, "task-b", 2*time.Minute, &events.Metadata{Source: "api-gateway", UserID: events.String("user-8")}),
		mk(events.TaskFailed, "task-b", 3*time.Minute, &events.Metadata{Source: "event-processor"}),
	}
	_, err := s.InsertEvents(t.Context(), evs)
	require.NoError(t, err)
	from, to := base.Add(time.Minute), base.Add(2*time.Minute)
	tests := []struct {
		name   string
		filter store.ReplayFilter
		want   []int
	}{
		{"event_ids", store.ReplayFilter{EventIDs: []string{evs[0].EventID, evs[3].EventID}}, []int{0, 3}},
		{"execution_id", store.ReplayFilter{ExecutionID: "exec-1"}, []int{0, 1}},
		{"aggregate_id", store.ReplayFilter{AggregateID: "task-b"}, []int{2, 3}},
		{"event_types", store.ReplayFilter{EventTypes: []string{"workflow.created", "task.created"}}, []int{0, 2}},
		{"exclude_event_types", store.ReplayFilter{ExcludeEventTypes: []string{"task.failed"}}, []int{0, 1, 2}},
		{"event_types and exclude_event_types", store.ReplayFilter{EventTypes: []string{"task.created", "task.failed"}, ExcludeEventTypes: []string{"task.failed"}}, []int{2}},
		{"start_time and end_time, both included", store.ReplayFilter{StartTime: &from, EndTime: &to}, []int{1, 2}},
		{"user_id", store.ReplayFilter{UserID: "user-7"}, []int{0}},
		{"service_name", store.ReplayFilter{ServiceName: "event-processor"}, []int{1, 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _, err := s.FindEvents(t.Context(), tt.filter, nil, 100)
			require.NoError(t, err)
			var ids, want []string
			for _, d := range got {
				ids = append(ids, d.EventID)
			}
			for _, i := range tt.want {
				want = append(want, evs[i].EventID)
			}
			assert.Equal(t, want, ids)
		})
	}
}

// seed004Table is one table of testdata/seeds/004_integration_tables.json.
type seed004Table struct {
	Fields []struct {
		Field, Type, Purpose string
	} `json:"fields"`
}

// TestSeed004TableFields is seed 004's webhook_events and
// integration_outbox tables: every field is in the store's document under
// its name, timestamps as dates, integers as ints, the rest strings or
// JSON documents.
func TestSeed004TableFields(t *testing.T) {
	var tables map[string]seed004Table
	seedtest.Unmarshal(t, "004_integration_tables.json", &tables)
	kind := func(f reflect.StructField) string {
		switch ft := strings.TrimPrefix(f.Type.String(), "*"); ft {
		case "time.Time":
			return "TIMESTAMPTZ"
		case "int":
			return "INTEGER"
		case "store.JSONDoc":
			return "JSONB"
		case "string":
			return "string"
		default:
			return ft
		}
	}
	for name, doc := range map[string]any{store.CollWebhookEvents: store.WebhookEvent{}, store.CollOutbox: store.OutboxEntry{}} {
		t.Run(name, func(t *testing.T) {
			tbl, ok := tables[name]
			require.True(t, ok)
			have := bsonFields(doc)
			for _, f := range tbl.Fields {
				got, ok := have[f.Field]
				if !assert.True(t, ok, "field %s", f.Field) {
					continue
				}
				want := f.Type
				if want == "UUID" || want == "TEXT" || strings.HasPrefix(want, "VARCHAR") {
					want = "string"
				}
				assert.Equal(t, want, kind(got), "field %s (%s)", f.Field, f.Type)
			}
		})
	}
	// A UUID column holds a UUID where StreamOps makes the id; aggregate_id
	// is the entity's own seed-003 id, wf-{uuid} (docs/conformance.md).
	uuidColumns := map[string]string{
		store.CollWebhookEvents + ".event_id": store.WebhookEventID("stripe", "evt_1"),
		store.CollOutbox + ".outbox_id":       store.OutboxID(events.NewEventID(), "acme"),
		store.CollOutbox + ".aggregate_id":    "documented",
	}
	uuidRE := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	for name, tbl := range tables {
		for _, f := range tbl.Fields {
			if f.Type != "UUID" {
				continue
			}
			id, ok := uuidColumns[name+"."+f.Field]
			if assert.True(t, ok, "UUID column %s.%s: say here what fills it", name, f.Field) && id != "documented" {
				assert.Regexp(t, uuidRE, id, "%s.%s", name, f.Field)
			}
		}
	}
	// The JSON transcription is the seed's text: every cell is in it.
	text := string(seedtest.Read(t, "004_integration_model_reference.txt"))
	for _, tbl := range tables {
		for _, f := range tbl.Fields {
			assert.Contains(t, text, f.Field+" |\n"+f.Type+" | "+f.Purpose)
		}
	}
}
