package stream

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/pii"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/store/storetest"
	"github.com/streamops/streamops/internal/vault"
)

// TestAnotherProducersPersonalDataIsProtectedAsItComesIn: a record
// another producer published with personal data in clear is used, stored
// and dead-lettered with references only; an undecodable one is redacted
// by value; StreamOps' own record (references already) is left as it
// came, byte for byte.
func TestAnotherProducersPersonalDataIsProtectedAsItComesIn(t *testing.T) {
	v, err := vault.NewInMemory(storetest.Open(t, store.Config{}))
	require.NoError(t, err)
	ctx := context.Background()
	p := &Processor{cfg: Config{Personal: v}}

	foreign := envelope(t, "evt-foreign", `{"workflowId":"wf-1","name":"Sync","steps":["validate"],"priority":"high",
		"input":{"records":[{"email":"jane@example.com","phone":"+4915112345678","amount":12.5}]}}`)
	ownPayload, err := v.Protect(ctx, vault.Input{Doc: []byte(`{"workflowId":"wf-2","name":"Sync","steps":["validate"],"priority":"high",
		"input":{"records":[{"email":"bob@example.com"}]}}`)})
	require.NoError(t, err)
	own := envelope(t, "evt-own", string(ownPayload))
	ownRaw, err := json.Marshal(own)
	require.NoError(t, err)
	completed := events.Envelope{EventType: events.WorkflowCompleted, EventID: "evt-done", SchemaVersion: events.SchemaVersion,
		Payload: json.RawMessage(`{"workflowId":"wf-2","name":"Invoice Sync","completedAt":"2026-01-04T01:09:45.123Z","duration":5,"stepsCompleted":3,"summary":{"totalRecords":0,"successfulRecords":0,"failedRecords":0}}`)}
	failedForeign := events.Envelope{EventType: events.WorkflowFailed, EventID: "evt-failed", SchemaVersion: events.SchemaVersion,
		Payload: json.RawMessage(`{"workflowId":"wf-3","name":"Sync","failedAt":"2026-01-04T01:09:45.123Z","failedStep":"validate","failedStepIndex":0,"error":{"code":"X","message":"bad record of jane@example.com"}}`)}
	cases := []struct {
		name  string
		msg   Message
		clear []string
		same  bool
	}{
		{name: "StreamOps' own workflow.completed: its workflow's name is no one's", msg: Message{Topic: "workflows", Envelope: completed, Raw: mustJSON(t, completed)}, same: true},
		{name: "another producer's workflow.failed: the name stays, the rest is protected", msg: Message{Topic: "workflows", Envelope: failedForeign, Raw: mustJSON(t, failedForeign)},
			clear: []string{"jane@example.com"}},
		{name: "another producer's event", msg: Message{Topic: "workflows", Envelope: foreign, Raw: mustJSON(t, foreign)},
			clear: []string{"jane@example.com", "4915112345678"}},
		{name: "StreamOps' own event", msg: Message{Topic: "workflows", Envelope: own, Raw: ownRaw}, same: true},
		{name: "an undecodable record", msg: Message{Topic: "workflows", Raw: []byte(`not json: mail jane@example.com`), Err: &DecodeError{}},
			clear: []string{"jane@example.com"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := string(c.msg.Raw)
			parts := []PartitionBatch{{Topic: "workflows", Messages: []Message{c.msg}}}
			require.NoError(t, p.protect(ctx, parts))
			got := parts[0].Messages[0]
			if c.same {
				assert.Equal(t, before, string(got.Raw))
				return
			}
			for _, x := range c.clear {
				assert.NotContains(t, string(got.Raw), x, "the record value (what a dead letter keeps)")
				assert.NotContains(t, string(got.Envelope.Payload), x, "the event the handler uses")
			}
			if got.Err == nil {
				if got.Envelope.EventType == events.WorkflowFailed {
					assert.Contains(t, string(got.Envelope.Payload), `"name":"Sync"`, "a partner filters on the workflow's name")
					return
				}
				assert.Contains(t, string(got.Envelope.Payload), `"amount":12.5`)
				back, err := v.ResolveDocument(ctx, got.Envelope.Payload, vault.Purpose{Who: "test"}, nil)
				require.NoError(t, err)
				assert.Contains(t, string(back), "jane@example.com", "a reference, not a redaction: it still opens")
				var env events.Envelope
				require.NoError(t, json.Unmarshal(got.Raw, &env))
				assert.JSONEq(t, string(got.Envelope.Payload), string(env.Payload), "the value is the protected event")
				assert.Contains(t, string(got.Envelope.Payload), `"name":"Sync"`, "only the input is the submitter's data")
			} else {
				assert.Contains(t, string(got.Raw), pii.Patterns[0].Replacement)
			}
		})
	}
}

func envelope(t *testing.T, id, payload string) events.Envelope {
	var compact json.RawMessage
	require.NoError(t, json.Unmarshal([]byte(payload), &compact))
	return events.Envelope{EventType: events.WorkflowCreated, EventID: id, SchemaVersion: events.SchemaVersion, Payload: compact}
}

func mustJSON(t *testing.T, v any) []byte {
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}
