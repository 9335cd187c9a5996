package workflow

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"slices"

	"github.com/tidwall/gjson"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/fault"
)

// fieldRule is where one output field comes from.
type fieldRule struct {
	from       string
	def        json.RawMessage
	hasDefault bool
}

// TransformStep maps each record onto the fields of the input's "mapping"
// parameter: {"out": "in.path"} copies a field that must exist (gjson path
// syntax), {"out": {"from": "in.path", "default": v}} one that may be
// missing. Without a mapping records pass unchanged. A record missing a
// required field fails the workflow with TRANSFORM_ERROR naming the record.
func TransformStep(_ context.Context, in StepInput) (StepOutput, error) {
	var mapping map[string]json.RawMessage
	found, err := in.Param("mapping", &mapping)
	if err != nil {
		return StepOutput{}, fault.Permanent(CodeTransform, "%w", err)
	}
	n := len(in.Records)
	out := StepOutput{Result: events.StepResult{RecordsProcessed: n, ValidRecords: n}}
	if !found {
		out.Records = in.Records
		return out, nil
	}
	rules, err := parseMapping(mapping)
	if err != nil {
		return StepOutput{}, err
	}
	fields := slices.Sorted(maps.Keys(rules))
	out.Records = make([]json.RawMessage, n)
	for i, rec := range in.Records {
		var b bytes.Buffer
		b.WriteByte('{')
		for j, field := range fields {
			rule := rules[field]
			value := json.RawMessage(nil)
			if res := gjson.GetBytes(rec, rule.from); res.Exists() {
				value = json.RawMessage(res.Raw)
			} else if rule.hasDefault {
				value = rule.def
			} else {
				return StepOutput{}, fault.Permanent(CodeTransform, "Invalid data format in record %d: field %q is missing", i, rule.from)
			}
			if j > 0 {
				b.WriteByte(',')
			}
			key, _ := json.Marshal(field)
			b.Write(key)
			b.WriteByte(':')
			b.Write(value)
		}
		b.WriteByte('}')
		out.Records[i] = b.Bytes()
	}
	return out, nil
}

func parseMapping(mapping map[string]json.RawMessage) (map[string]fieldRule, error) {
	rules := make(map[string]fieldRule, len(mapping))
	for field, raw := range mapping {
		var path string
		if json.Unmarshal(raw, &path) == nil && path != "" {
			rules[field] = fieldRule{from: path}
			continue
		}
		var obj struct {
			From    string          `json:"from"`
			Default json.RawMessage `json:"default"`
		}
		if json.Unmarshal(raw, &obj) != nil || obj.From == "" {
			return nil, fault.Permanent(CodeTransform, "input.mapping.%s must be a field path or {\"from\": path, \"default\": value}", field)
		}
		rules[field] = fieldRule{from: obj.From, def: obj.Default, hasDefault: obj.Default != nil}
	}
	return rules, nil
}
