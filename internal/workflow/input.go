package workflow

import (
	"bytes"
	"encoding/json"

	"github.com/streamops/streamops/internal/fault"
)

// Input is a workflow's input as its steps see it.
type Input struct {
	// Records are what the first step reads, each a JSON object.
	Records []json.RawMessage
	// Params are the step parameters.
	Params map[string]json.RawMessage
}

// ParseInput reads a workflow's input (the optional `input` of
// workflow.created). Two shapes are understood:
//
//   - {"records": [{…}, …], <parameters>}: the records, and step
//     parameters beside them: "schema" (validate: a JSON Schema for one
//     record), "mapping" (transform: {"out": "in.path"} or {"out": {"from":
//     "in.path", "default": …}}), "dataset" (store: where the records go,
//     default the workflow name), "notify" (notify: {"recipient",
//     "subject", "template", "maxRetries"}) and "deliver" (deliver:
//     {"target", "eventType"}).
//   - any other object, such as a webhook body: that object is the single
//     record and there are no parameters, so a third-party body is never
//     read as configuration.
//
// No input means no records.
func ParseInput(raw []byte) (Input, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return Input{}, nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		return Input{}, fault.Permanent(CodeInvalidInput, "input must be a JSON object")
	}
	recs, ok := obj["records"]
	if !ok {
		return Input{Records: []json.RawMessage{json.RawMessage(raw)}}, nil
	}
	var list []json.RawMessage
	if err := json.Unmarshal(recs, &list); err != nil {
		return Input{}, fault.Permanent(CodeInvalidInput, "input.records must be an array of objects")
	}
	for i, r := range list {
		if !isObject(r) {
			return Input{}, fault.Permanent(CodeInvalidInput, "input.records[%d] must be an object", i)
		}
	}
	delete(obj, "records")
	return Input{Records: list, Params: obj}, nil
}

func isObject(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && raw[0] == '{'
}
