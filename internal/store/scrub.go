package store

import (
	"encoding/json"

	"github.com/tidwall/gjson"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/pii"
)

// scrubPayload removes personal data from a payload bound for a column seed
// 004 keeps free of PII ("PII categorically prohibited" in
// webhook_events.payload and integration_outbox.payload). The store does
// it on every insert into those columns, so no writer (a webhook, a
// workflow submitted over the API, a replay, a record published straight
// to Kafka) can store one unscrubbed; a payload a caller scrubbed already
// passes through without a copy. A workflow's name in the envelope of a
// workflow event (a partner's subscription delivers those) is scrubbed by
// value, not redacted as a person's name would be: it names the workflow,
// which the partner subscribed by.
func scrubPayload(d JSONDoc) (JSONDoc, error) {
	if len(d) == 0 || len(d) > MaxDocumentSize {
		return d, nil // nothing, or refused whole before any encoding
	}
	out, err := pii.Scrub(d)
	if err != nil {
		return nil, &InvalidDocumentError{Reason: "the payload is not one JSON value", err: err}
	}
	if name, ok := workflowName(d); ok {
		if kept, err := withWorkflowName(out, name); err == nil {
			out = kept
		}
	}
	return JSONDoc(out), nil
}

// namedWorkflowEvents are the event types whose payload.name is their
// workflow's name.
var namedWorkflowEvents = map[events.Type]bool{events.WorkflowCreated: true, events.WorkflowCompleted: true, events.WorkflowFailed: true}

// workflowName is d's payload.name, scrubbed by value, when d is the
// envelope of a workflow event that names its workflow.
func workflowName(d []byte) (string, bool) {
	r := gjson.GetManyBytes(d, "eventType", "payload.name")
	if !namedWorkflowEvents[events.Type(r[0].String())] || r[1].Type != gjson.String {
		return "", false
	}
	name, _ := pii.ScrubText(r[1].String())
	return name, true
}

// withWorkflowName is the envelope doc with its payload.name set to name.
func withWorkflowName(doc []byte, name string) ([]byte, error) {
	var env map[string]json.RawMessage
	if err := json.Unmarshal(doc, &env); err != nil {
		return nil, err
	}
	var payload map[string]json.RawMessage
	if err := json.Unmarshal(env["payload"], &payload); err != nil {
		return nil, err
	}
	n, err := json.Marshal(name)
	if err != nil {
		return nil, err
	}
	payload["name"] = n
	if env["payload"], err = json.Marshal(payload); err != nil {
		return nil, err
	}
	return json.Marshal(env)
}
