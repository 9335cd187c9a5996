package provider

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/streamops/streamops/events"
)

// DefaultTaskMaxRetries is the default TaskTemplate.MaxRetries, seed 003's
// example value.
const DefaultTaskMaxRetries = 3

// Route says what an event type starts: a workflow, a task, or nothing
// (Skip). A provider's routes are tried in order and the first whose Match
// fits wins; an exact match does not beat an earlier prefix, so list
// specific routes (and skips) before the patterns that would cover them.
// Exactly one of Workflow, Task and Skip is set.
type Route struct {
	// Match is an exact event type ("customer.created") or a prefix pattern
	// ending in "*" ("invoice.*" matches "invoice.paid" but not "invoice";
	// "OR_*" matches "OR_MGMT"; "*" alone matches every type).
	Match string `json:"match"`
	// Workflow, when set, is the workflow.created to publish.
	Workflow *WorkflowTemplate `json:"workflow,omitempty"`
	// Task, when set, is the task.created to publish.
	Task *TaskTemplate `json:"task,omitempty"`
	// Skip stops routing: the event is stored and marked skipped. It lets a
	// route carve an event type out of a later pattern.
	Skip bool `json:"skip,omitempty"`
}

// WorkflowTemplate is the workflow a route starts: a workflow.created
// payload without its id and creation time.
type WorkflowTemplate struct {
	// Name is the workflow's human-readable name. Required.
	Name string `json:"name"`
	// Steps run in order; each is one of events.Steps. At least one.
	Steps []string `json:"steps"`
	// Priority is low, medium or high. Required: seed 003 has no default.
	Priority events.Priority `json:"priority"`
}

// TaskTemplate is the task a route creates: a task.created payload without
// its id and creation time, its data read from the event's payload.
type TaskTemplate struct {
	// Type is one of events.TaskTypes.
	Type events.TaskType `json:"type"`
	// Data maps each field of the task's data to a gjson path into the
	// protected payload, e.g. {"recipient": "data.object.email"}: personal
	// data arrives as references, which only a task that needs the value
	// opens (the email task, as it sends). Default none ({}).
	Data map[string]string `json:"data,omitempty"`
	// MaxRetries before the task is dead-lettered. Default
	// DefaultTaskMaxRetries (3) when absent or 0.
	MaxRetries int `json:"maxRetries,omitempty"`
}

// Route returns the first of the provider's routes whose Match fits
// eventType, and false when none does (store the event as skipped).
func (p *Provider) Route(eventType string) (Route, bool) {
	for _, r := range p.Routes {
		if r.Matches(eventType) {
			return r, true
		}
	}
	return Route{}, false
}

// Matches reports whether the route's Match fits eventType.
func (r Route) Matches(eventType string) bool {
	if prefix, ok := strings.CutSuffix(r.Match, "*"); ok {
		return strings.HasPrefix(eventType, prefix)
	}
	return r.Match == eventType
}

// BuildData reads the template's Data paths from payload (the redacted
// body) into the task's data object, keeping each value's JSON as found. A
// path that is absent is a *FieldError: the caller records the webhook as
// failed rather than publishing a task its handler cannot run.
func (t *TaskTemplate) BuildData(payload []byte) (json.RawMessage, error) {
	data := make(map[string]json.RawMessage, len(t.Data))
	for _, out := range slices.Sorted(maps.Keys(t.Data)) {
		path := t.Data[out]
		v := gjson.GetBytes(payload, path)
		if !v.Exists() {
			return nil, &FieldError{Field: "task data " + out, Source: Field{Path: path}, Reason: "is missing"}
		}
		data[out] = json.RawMessage(v.Raw)
	}
	raw, err := json.Marshal(data)
	if err != nil {
		return nil, fmt.Errorf("webhook: task data: %w", err)
	}
	return raw, nil
}

func (r *Route) setDefaults() {
	if r.Task != nil && r.Task.MaxRetries == 0 {
		r.Task.MaxRetries = DefaultTaskMaxRetries
	}
}

func (r *Route) validate(field string, errs *configErrors) {
	switch {
	case r.Match == "":
		errs.add(field+".match", "is required")
	case strings.Contains(strings.TrimSuffix(r.Match, "*"), "*"):
		errs.add(field+".match", "%q may only end in '*'", r.Match)
	}
	actions := 0
	for _, set := range []bool{r.Workflow != nil, r.Task != nil, r.Skip} {
		if set {
			actions++
		}
	}
	if actions != 1 {
		errs.add(field, "needs exactly one of workflow, task or skip")
	}
	if r.Workflow != nil {
		r.Workflow.validate(field+".workflow", errs)
	}
	if r.Task != nil {
		r.Task.validate(field+".task", errs)
	}
}

func (w *WorkflowTemplate) validate(field string, errs *configErrors) {
	if w.Name == "" {
		errs.add(field+".name", "is required")
	}
	if len(w.Steps) == 0 {
		errs.add(field+".steps", "workflow needs at least one step")
	}
	for i, s := range w.Steps {
		if !events.KnownStep(s) {
			errs.add(fmt.Sprintf("%s.steps[%d]", field, i), "%q is not a known step (%s)", s, strings.Join(events.Steps, ", "))
		}
	}
	switch w.Priority {
	case events.PriorityLow, events.PriorityMedium, events.PriorityHigh:
	default:
		errs.add(field+".priority", "%q must be low, medium or high", w.Priority)
	}
}

func (t *TaskTemplate) validate(field string, errs *configErrors) {
	if !t.Type.Known() {
		errs.add(field+".type", "%q must be %s", t.Type, oneOf(events.TaskTypeNames()))
	}
	for _, out := range slices.Sorted(maps.Keys(t.Data)) {
		switch path := t.Data[out]; {
		case out == "":
			errs.add(field+".data", "has an empty field name")
		case path == "":
			errs.add(field+".data."+out, "needs a payload path")
		}
	}
	if t.MaxRetries < 0 {
		errs.add(field+".maxRetries", "%d must not be negative", t.MaxRetries)
	}
}
