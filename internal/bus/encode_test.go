package bus

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/events/eventstest"
)

// encoderPayloads are payloads the fast encoder must either reproduce
// byte-for-byte or hand to encoding/json.
var encoderPayloads = []string{
	`{"workflowId":"wf-1","name":"Data Processing Pipeline","steps":["validate","transform","store"],"priority":"high"}`,
	`{"taskId":"task-1","type":"email_notification","data":{"recipient":"user@example.com","workflowId":"nested-is-ignored"},"retryCount":0,"maxRetries":3}`,
	`{"webhookEventId":"whe-1","provider":"stripe"}`,
	`{"webhookEventId":""}`,
	`{"taskId":"task-1","workflowId":"wf-1"}`,
	`{"workflowId":"","taskId":"task-2"}`,
	`{"workflowId":"wf-1","workflowId":"wf-2"}`,
	`{"WorkflowID":"wf-folded"}`,
	`{"workflowId":"wf-1","WORKFLOWID":"wf-2"}`,
	`{"workflow\u0049d":"wf-escaped-name"}`,
	`{"workflowId":"wf-\u0031"}`,
	`{"workflowId":null,"taskId":"task-1"}`,
	`{"workflowId":7}`,
	`{"taskId":"task-1","note":"a < b & c > d"}`,
	`{"taskId":"task-1","note":"line\u2028separator"}`,
	"{\"taskId\":\"task-1\",\"note\":\"raw \u2028 separator\"}",
	`{"taskId":"task-1","price":"12 €","city":"Zürich","emoji":"🚀"}`,
	`{"taskId":"task-1","esc":"quote \" backslash \\ slash \/ \b\f\n\r\t \u00e9"}`,
	`{"taskId":"task-1","n":[0,-1,1.5,-2.25e10,3E-2,1e+3,true,false,null,{},[]]}`,
	`{ "taskId": "task-spaced" }`,
	`{"taskId":"task-1"}  `,
	`{"taskId":"task-1"}{}`,
	`{"taskId":"task-1",}`,
	`{"taskId":"task-1","n":01}`,
	`{"taskId":"task-1","n":-}`,
	`{"taskId":"task-1","n":1.}`,
	`{"taskId":"task-1","s":"unterminated}`,
	"{\"taskId\":\"task-1\",\"s\":\"control \x01 char\"}",
	`{"taskId":"task-1","s":"bad \x escape"}`,
	`{"taskId":"task-1","s":"short \u12"}`,
	`["workflowId","wf-1"]`,
	`"wf-1"`,
	`null`,
	``,
	`{}`,
	`{"taskId":"` + strings.Repeat("k", 100) + `","body":"` + strings.Repeat("0123456789abcdef", 64) + `"}`,
	`{"taskId":"t","deep":` + strings.Repeat(`[`, 200) + strings.Repeat(`]`, 200) + `}`,
}

func encoderEnvelope(payload string) events.Envelope {
	return events.Envelope{
		EventType: events.TaskCreated, EventID: "evt-0b6f3c1e-8d2a-4c5b-9e7f-1a2b3c4d5e6f",
		Timestamp:     events.At(time.Date(2026, 1, 4, 1, 9, 27, 123e6, time.UTC)),
		SchemaVersion: events.SchemaVersion,
		Payload:       json.RawMessage(payload),
		Metadata:      &events.Metadata{Source: "api-gateway", UserID: events.Null, APIVersion: "1.0.0"},
	}
}

// checkEncoder holds the encoder to its contract: whenever it takes the
// fast path, the bytes are json.Marshal's and the key is AggregateID's.
func checkEncoder(t *testing.T, env events.Envelope) (fast bool) {
	t.Helper()
	want, wantErr := json.Marshal(env)
	value, key, ok := new(envelopeEncoder).fast(&env)
	if wantErr != nil {
		require.False(t, ok, "fast path accepted what json.Marshal rejects: %v", wantErr)
		return false
	}
	if ok {
		require.Equal(t, string(want), string(value))
		require.Equal(t, env.AggregateID(), string(key))
	}
	value, key, err := new(envelopeEncoder).encode(&env)
	require.NoError(t, err)
	require.Equal(t, string(want), string(value))
	require.Equal(t, env.AggregateID(), string(key))
	return ok
}

func TestEncoderMatchesEncodingJSON(t *testing.T) {
	for _, p := range encoderPayloads {
		checkEncoder(t, encoderEnvelope(p))
	}
	envs := []events.Envelope{
		eventstest.WorkflowCreated(eventstest.NewUUID(), eventstest.NewUUID(), "Pipeline", "high", time.Now(), "validate"),
		eventstest.TaskCreated(eventstest.NewUUID(), eventstest.NewUUID(), "data_export", time.Now(), map[string]string{"format": "csv"}),
		eventstest.WorkflowStepCompleted(eventstest.NewUUID(), eventstest.NewUUID(), time.Now(), "store", 2, 5),
	}
	odd := encoderEnvelope(`{"taskId":"task-1"}`)
	odd.EventID = `evt-"quoted"`
	noMeta := encoderEnvelope(`{"taskId":"task-1"}`)
	noMeta.Metadata, noMeta.SchemaVersion = nil, ""
	farFuture := encoderEnvelope(`{"taskId":"task-1"}`)
	farFuture.Timestamp = events.At(time.Date(12026, 1, 1, 0, 0, 0, 0, time.UTC))
	zero := encoderEnvelope(`{"taskId":"task-1"}`)
	zero.Timestamp = events.Time{}
	added := encoderEnvelope(`{"taskId":"task-1"}`)
	added.Extra = `{"priorityHint":7,"tenant":"acme"}`
	addedMeta := encoderEnvelope(`{"taskId":"task-1"}`)
	addedMeta.Metadata = &events.Metadata{Source: "partner", Extra: `{"region":"eu"}`}
	for _, env := range append(envs, odd, noMeta, farFuture, zero, added, addedMeta) {
		checkEncoder(t, env)
	}
	for _, env := range []events.Envelope{added, addedMeta} {
		value, _, err := new(envelopeEncoder).encode(&env)
		require.NoError(t, err)
		var back events.Envelope
		require.NoError(t, json.Unmarshal(value, &back))
		assert.Equal(t, env.Extra, back.Extra, "a consumed event's added fields are published with it")
		assert.Equal(t, env.Metadata.Extra, back.Metadata.Extra, "and its metadata's")
	}
	assert.True(t, checkEncoder(t, envs[0]), "seed envelopes take the fast path")
	assert.True(t, checkEncoder(t, envs[1]), "seed envelopes take the fast path")
}

func FuzzEncoderMatchesEncodingJSON(f *testing.F) {
	for _, p := range encoderPayloads {
		f.Add(p, "evt-1")
	}
	f.Fuzz(func(t *testing.T, payload, eventID string) {
		env := encoderEnvelope(payload)
		env.EventID = eventID
		checkEncoder(t, env)
	})
}

// TestEncoderKnowsEveryEnvelopeField fails when events.Envelope changes
// shape, because the fast encoder writes its fields by hand.
func TestEncoderKnowsEveryEnvelopeField(t *testing.T) {
	var got []string
	typ := reflect.TypeFor[events.Envelope]()
	for f := range typ.Fields() {
		got = append(got, f.Name+" "+f.Type.String()+" "+f.Tag.Get("json"))
	}
	assert.Equal(t, []string{
		"EventType events.Type eventType",
		"EventID string eventId",
		"Timestamp events.Time timestamp",
		"SchemaVersion string schemaVersion,omitempty",
		"Payload json.RawMessage payload",
		"Metadata *events.Metadata metadata,omitempty",
		"Extra events.Extra -",       // a consumed event's added fields: fast leaves them to encoding/json
		"encoding *events.encoding ", // New's JSON of the event, not a field of it (Envelope.Encoding)
	}, got, "update envelopeEncoder.fast to write the new shape")
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
	encs := encodeInOrder(envs, recs, "", func(i int, err error) {
		order = append(order, i)
		if i == 300 {
			assert.ErrorIs(t, err, ErrUnroutable)
			return
		}
		assert.NoError(t, err)
		assert.Equal(t, envs[i].AggregateID(), string(recs[i].Key))
	})
	assert.Len(t, encs, 3)
	for i, got := range order {
		require.Equal(t, i, got)
	}
	require.Len(t, order, n)
}

// TestSpecialFlagsExactlyTheBytesJSONMarshalWouldTouch checks the word-wide
// test of skipPlain against the byte table for every byte value at every
// position of a word, beside every other byte value: a miss would publish
// a payload json.Marshal would have rewritten or refused.
func TestSpecialFlagsExactlyTheBytesJSONMarshalWouldTouch(t *testing.T) {
	isSpecial := func(b byte) bool { return byteClass[b] != classPlain || b >= 0x80 }
	for pos := range 8 {
		for b := range 256 {
			for other := range 256 {
				w := bytes.Repeat([]byte{byte(other)}, 8)
				w[pos] = byte(b)
				x := binary.LittleEndian.Uint64(w)
				want := isSpecial(byte(b)) || isSpecial(byte(other))
				if got := special(x) != 0; got != want {
					t.Fatalf("special(% x) = %v, want %v", w, got, want)
				}
				if got := (x|^plainMask(x))&highs != 0; got != want {
					t.Fatalf("plainMask(% x) says special %v, want %v", w, got, want)
				}
			}
		}
	}
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
