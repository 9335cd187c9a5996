package bus

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/events/eventstest"
	"github.com/streamops/streamops/internal/seedtest"
)

func taskEnvelope(payload string) events.Envelope {
	return events.Envelope{
		EventType: events.TaskCreated, EventID: "evt-0b6f3c1e-8d2a-4c5b-9e7f-1a2b3c4d5e6f",
		Timestamp:     events.At(time.Date(2026, 1, 4, 1, 9, 27, 123e6, time.UTC)),
		SchemaVersion: events.SchemaVersion,
		Payload:       json.RawMessage(payload),
		Metadata:      &events.Metadata{Source: "api-gateway", UserID: events.Null, APIVersion: "1.0.0"},
	}
}

// TestSeedEventsAreRecordedAsTheSeedWritesThem: each of seed 003's event
// examples, decoded (as the retry-sweeper and replays hold events), is
// published as the seed's JSON byte for byte (compacted): key order,
// escaping and the timestamp's format, keyed by its workflowId or taskId.
func TestSeedEventsAreRecordedAsTheSeedWritesThem(t *testing.T) {
	seeds, err := filepath.Glob(filepath.Join(seedtest.Dir(), "003_event.*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, seeds)
	for _, path := range seeds {
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			seed := seedtest.JSON(t, name)
			env, err := events.Decode(seed)
			require.NoError(t, err)
			r, err := NewRecord(env, "")
			require.NoError(t, err)
			var want bytes.Buffer
			require.NoError(t, json.Compact(&want, seed))
			assert.Equal(t, want.String(), string(r.Value))
			assert.Equal(t, env.AggregateID(), string(r.Key))
			assert.NotEmpty(t, r.Key)
		})
	}
}

// TestRecordValueIsTheEnvelopesJSON: whatever the payload and fields, the
// record value is json.Marshal of the envelope (compact, HTML characters
// and U+2028/U+2029 escaped, a consumed event's added fields kept) and
// the key is AggregateID; what encoding/json refuses or has no key is
// ErrUnroutable.
func TestRecordValueIsTheEnvelopesJSON(t *testing.T) {
	tests := []struct {
		name    string
		payload string
		change  func(*events.Envelope)
		wantKey string // "" when refused
	}{
		{"workflow payload", `{"workflowId":"wf-1","name":"Pipeline","steps":["validate"],"priority":"high"}`, nil, "wf-1"},
		{"nested ids are not keys", `{"taskId":"task-1","data":{"workflowId":"nested"}}`, nil, "task-1"},
		{"webhook event id", `{"webhookEventId":"whe-1"}`, nil, "whe-1"},
		{"workflowId before taskId", `{"taskId":"task-1","workflowId":"wf-1"}`, nil, "wf-1"},
		{"an empty workflowId falls to taskId", `{"workflowId":"","taskId":"task-2"}`, nil, "task-2"},
		{"HTML characters", `{"taskId":"task-1","note":"a < b & c > d"}`, func(e *events.Envelope) { e.EventID = "evt-<&>" }, "task-1"},
		{"line separators", "{\"taskId\":\"task-1\",\"note\":\"raw \u2028 \u2029\"}", nil, "task-1"},
		{"unicode", `{"taskId":"tâche-1","price":"12 €","emoji":"🚀"}`, func(e *events.Envelope) {
			e.Metadata = &events.Metadata{Source: "api-ü", UserID: events.String("用户")}
		}, "tâche-1"},
		{"escapes", `{"taskId":"task-1","esc":"quote \" backslash \\ \/ \n \u00e9"}`, nil, "task-1"},
		{"uncompact payload", "{ \"taskId\" : \"task-1\",\n \"n\": [1, 2] }", nil, "task-1"},
		{"added fields", `{"taskId":"task-1"}`, func(e *events.Envelope) {
			e.Extra = `{"priorityHint":7,"tenant":"acme"}`
			e.Metadata = &events.Metadata{Source: "partner", Extra: `{"region":"eu"}`}
		}, "task-1"},
		{"no metadata, no schema version", `{"taskId":"task-1"}`, func(e *events.Envelope) { e.Metadata, e.SchemaVersion = nil, "" }, "task-1"},
		{"whole second in another zone", `{"taskId":"task-1"}`, func(e *events.Envelope) {
			e.Timestamp = events.At(time.Date(2026, 12, 31, 23, 59, 59, 0, time.FixedZone("x", 3600)))
		}, "task-1"},
		{"long payload", `{"taskId":"t","body":"` + strings.Repeat("0123456789abcdef", 64) + `"}`, nil, "t"},
		{"no key", `{"type":"data_export"}`, nil, ""},
		{"a null key", `{"workflowId":null}`, nil, ""},
		{"not JSON", `{"taskId":"task-1",}`, nil, ""},
		{"two values", `{"taskId":"task-1"}{}`, nil, ""},
		{"not an object", `["taskId","task-1"]`, nil, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := taskEnvelope(tc.payload)
			if tc.change != nil {
				tc.change(&env)
			}
			r, err := NewRecord(env, "")
			if tc.wantKey == "" {
				require.ErrorIs(t, err, ErrUnroutable)
				return
			}
			require.NoError(t, err)
			want, err := json.Marshal(env)
			require.NoError(t, err)
			assert.Equal(t, string(want), string(r.Value))
			assert.Equal(t, tc.wantKey, string(r.Key))
			var back events.Envelope
			require.NoError(t, json.Unmarshal(r.Value, &back))
			assert.Equal(t, env.Extra, back.Extra, "a consumed event's added fields are published with it")
			if env.Metadata != nil {
				assert.Equal(t, env.Metadata.Extra, back.Metadata.Extra, "and its metadata's")
			}
		})
	}
}

func TestEncodeInOrderEmitsInInputOrderFromManyGoroutines(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	n := 5*encodeChunk + 17
	envs := make([]events.Envelope, n)
	for i := range envs {
		envs[i] = eventstest.TaskCreated(eventstest.NewUUID(), eventstest.NewUUID(), "data_export", time.Now(), map[string]int{"i": i})
	}
	envs[300].Payload = json.RawMessage(`{"type":"no key"}`)
	recs := make([]kgo.Record, n)

	var order []int
	encodeInOrder(envs, recs, "", nil, func(i int, err error) {
		order = append(order, i)
		if i == 300 {
			assert.ErrorIs(t, err, ErrUnroutable)
			return
		}
		assert.NoError(t, err)
		assert.Equal(t, envs[i].AggregateID(), string(recs[i].Key))
	})
	for i, got := range order {
		require.Equal(t, i, got)
	}
	require.Len(t, order, n)
}

// TestRecordsOfNewEventsAreNewsJSONUntilChanged: an event events.New
// built is sent as New encoded it, and one changed since (ingest derives
// its eventIds after New) is encoded afresh; either way the record is
// json.Marshal of the envelope and keyed by AggregateID.
func TestRecordsOfNewEventsAreNewsJSONUntilChanged(t *testing.T) {
	for _, change := range []struct {
		name string
		do   func(*events.Envelope)
	}{
		{"as built", func(*events.Envelope) {}},
		{"a derived eventId", func(e *events.Envelope) { e.EventID = events.DeriveID(events.EventIDPrefix, "webhook-1") }},
		{"a replay's metadata", func(e *events.Envelope) { e.Metadata = &events.Metadata{Source: "replay", ReplayOf: "evt-0"} }},
		{"an added field", func(e *events.Envelope) { e.Extra = `{"tenant":"acme"}` }},
	} {
		t.Run(change.name, func(t *testing.T) {
			env, err := events.NewEvent(events.TaskCreatedPayload{TaskID: events.NewTaskID(), Type: events.TaskDataExport,
				Data: []byte(`{"format":"csv","note":"<b>&</b>"}`), MaxRetries: 3, CreatedAt: events.Now()}, &events.Metadata{Source: "api-gateway"})
			require.NoError(t, err)
			change.do(&env)
			r, err := NewRecord(env, "")
			require.NoError(t, err)
			want, err := json.Marshal(env)
			require.NoError(t, err)
			assert.Equal(t, string(want), string(r.Value))
			assert.Equal(t, env.AggregateID(), string(r.Key))
		})
	}
}
