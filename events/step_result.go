package events

import (
	"encoding/json"
	"fmt"
)

// StepResult is the result object of workflow.step.completed: the record
// counters of seed 003 plus whatever else a step reports. The other keys
// are kept, undecoded, in Extra so a round trip loses nothing.
type StepResult struct {
	RecordsProcessed int
	ValidRecords     int
	InvalidRecords   int
	// Extra holds the result's other keys; nil when there are none.
	Extra map[string]json.RawMessage
}

// MarshalJSON encodes the counters and the Extra keys as one object; a
// counter wins over an Extra key of the same name.
func (r StepResult) MarshalJSON() ([]byte, error) {
	obj := make(map[string]any, len(r.Extra)+3)
	for k, v := range r.Extra {
		obj[k] = v
	}
	obj["recordsProcessed"] = r.RecordsProcessed
	obj["validRecords"] = r.ValidRecords
	obj["invalidRecords"] = r.InvalidRecords
	return json.Marshal(obj)
}

// UnmarshalJSON decodes the counters by their exact names and keeps every
// other key in Extra.
func (r *StepResult) UnmarshalJSON(b []byte) error {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(b, &obj); err != nil {
		return fmt.Errorf("events: step result: %w", err)
	}
	var res StepResult
	// Exact names: encoding/json's case-insensitive field match would let
	// a "RecordsProcessed" key overwrite the counter and be lost from Extra.
	counters := map[string]*int{
		"recordsProcessed": &res.RecordsProcessed,
		"validRecords":     &res.ValidRecords,
		"invalidRecords":   &res.InvalidRecords,
	}
	for name, dst := range counters {
		raw, ok := obj[name]
		if !ok {
			continue
		}
		if err := json.Unmarshal(raw, dst); err != nil {
			return fmt.Errorf("events: step result %s: %w", name, err)
		}
		delete(obj, name)
	}
	if len(obj) > 0 {
		res.Extra = obj
	}
	*r = res
	return nil
}
