package events

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestNewEncodingKeepsAKeyOnlyWhereItIsAggregateIDs: the key New keeps is
// the one AggregateID reads; where encoding/json would read the payload
// differently from the validator's map (a case-folded name, an id that is
// not a string), New keeps none and the producer encodes as before.
func TestNewEncodingKeepsAKeyOnlyWhereItIsAggregateIDs(t *testing.T) {
	tests := []struct {
		payload string
		key     string // "-": no encoding kept
	}{
		{`{"workflowId":"wf-1","taskId":"task-1"}`, "wf-1"},
		{`{"taskId":"task-1","webhookEventId":"w-1"}`, "task-1"},
		{`{"workflowId":"","webhookEventId":"w-1"}`, "w-1"},
		{`{"workflowId":null,"taskId":"task-1"}`, "task-1"},
		{`{"other":"x"}`, ""},
		{`{"WorkflowID":"wf-2"}`, "-"},
		{`{"workflowId":"wf-1","TASKID":"task-2"}`, "-"},
		{`{"workflowId":7}`, "-"},
	}
	for _, tc := range tests {
		t.Run(tc.payload, func(t *testing.T) {
			env := Envelope{EventType: WorkflowProcessing, EventID: "evt-1", Payload: json.RawMessage(tc.payload)}
			var decoded any
			assert.NoError(t, json.Unmarshal([]byte(`{"payload":`+tc.payload+`}`), &decoded))
			enc := newEncoding(env, []byte("{}"), decoded)
			if tc.key == "-" {
				assert.Nil(t, enc)
				return
			}
			if assert.NotNil(t, enc) {
				assert.Equal(t, tc.key, string(enc.key))
				assert.Equal(t, env.AggregateID(), string(enc.key), "AggregateID agrees")
			}
		})
	}
}
