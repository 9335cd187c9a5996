package submit

import (
	"fmt"

	"github.com/streamops/streamops/events"
)

// Default limits of one submission; see Limits for why each is what it is.
const (
	DefaultMaxSteps         = 10
	DefaultMaxNameBytes     = 200
	DefaultMaxInputBytes    = 32 << 10
	DefaultMaxTaskDataBytes = 32 << 10
)

// envelopeReserve is what a created event adds around a submission's name,
// steps, input or data (ids, timestamps, metadata, the record's key,
// headers and batch overhead), rounded up generously.
const envelopeReserve = 8 << 10

// Limits bound the work one POST /api/workflows or POST /api/tasks can
// create, so that one request cannot stall everyone else's: every step is
// a processor invocation and events on the workflow's partition, and the
// input or data travels in the created event, is stored with the workflow
// or task and is read by every step. A submission over a limit is refused
// with 400 naming the field and the limit; nothing is stored. The zero
// value of a field means its default.
type Limits struct {
	// MaxSteps is the most steps one workflow may have
	// (STREAMOPS_MAX_WORKFLOW_STEPS). Default 10: twice the five built-in
	// steps; 10,000 steps once held a partition for minutes, and every
	// store step writes every record again.
	MaxSteps int
	// MaxNameBytes is the longest workflow name in bytes
	// (STREAMOPS_MAX_WORKFLOW_NAME_BYTES). Default 200: a name is a label
	// shown in lists and logs, not data.
	MaxNameBytes int
	// MaxInputBytes is the largest workflow input, as sent
	// (STREAMOPS_MAX_WORKFLOW_INPUT_BYTES). Default 32 KiB (about 850
	// small records): with 256 KiB and 20 steps the largest workflow wrote
	// 49,000 records and held the embedded store for minutes, and with
	// 64 KiB webhook p99 neared a second on a loaded machine; with these
	// defaults it runs in the local stack while webhooks are answered well
	// within the contract's second (TestLargestAllowedWorkflowDoesNot…).
	MaxInputBytes int
	// MaxTaskDataBytes is the largest task data, as sent
	// (STREAMOPS_MAX_TASK_DATA_BYTES). Default 32 KiB, as MaxInputBytes.
	MaxTaskDataBytes int
}

// limit is one field of Limits: its name, its default, and the field
// itself.
type limit struct {
	name string
	def  int
	v    *int
}

// fields lists l's fields, for setDefaults and Validate.
func (l *Limits) fields() []limit {
	return []limit{
		{"MaxSteps", DefaultMaxSteps, &l.MaxSteps},
		{"MaxNameBytes", DefaultMaxNameBytes, &l.MaxNameBytes},
		{"MaxInputBytes", DefaultMaxInputBytes, &l.MaxInputBytes},
		{"MaxTaskDataBytes", DefaultMaxTaskDataBytes, &l.MaxTaskDataBytes},
	}
}

func (l *Limits) setDefaults() {
	for _, f := range l.fields() {
		if *f.v == 0 {
			*f.v = f.def
		}
	}
}

// Validate reports the first bad limit: each must be positive, and the
// largest workflow.created and task.created they admit must fit a Kafka
// record of maxMessageBytes (the brokers' message.max.bytes), or accepted
// submissions could never be published.
func (l Limits) Validate(maxMessageBytes int) error {
	for _, f := range l.fields() {
		if *f.v <= 0 {
			return fmt.Errorf("submit: Limits.%s must be positive, got %d", f.name, *f.v)
		}
	}
	longestStep := 0
	for _, s := range events.Steps {
		longestStep = max(longestStep, len(s))
	}
	// A name's bytes may each become a six-byte \u escape in JSON.
	workflow := envelopeReserve + 6*l.MaxNameBytes + l.MaxSteps*(longestStep+3) + l.MaxInputBytes
	if workflow > maxMessageBytes {
		return fmt.Errorf("submit: Limits admit a %d-byte workflow.created; the brokers accept at most %d (KAFKA_MAX_MESSAGE_BYTES): lower MaxInputBytes, MaxNameBytes or MaxSteps",
			workflow, maxMessageBytes)
	}
	if task := envelopeReserve + l.MaxTaskDataBytes; task > maxMessageBytes {
		return fmt.Errorf("submit: Limits.MaxTaskDataBytes admits a %d-byte task.created; the brokers accept at most %d (KAFKA_MAX_MESSAGE_BYTES)",
			task, maxMessageBytes)
	}
	return nil
}

// checkWorkflow applies the limits to a workflow submission.
func (l Limits) checkWorkflow(req WorkflowRequest) error {
	switch {
	case len(req.Name) > l.MaxNameBytes:
		return &ValidationError{Field: "name", Reason: fmt.Sprintf("is %d bytes; at most %d are allowed (STREAMOPS_MAX_WORKFLOW_NAME_BYTES)", len(req.Name), l.MaxNameBytes)}
	case len(req.Steps) > l.MaxSteps:
		return &ValidationError{Field: "steps", Reason: fmt.Sprintf("has %d steps; at most %d are allowed (STREAMOPS_MAX_WORKFLOW_STEPS)", len(req.Steps), l.MaxSteps)}
	case len(req.Input) > l.MaxInputBytes:
		return &ValidationError{Field: "input", Reason: fmt.Sprintf("is %d bytes; at most %d are allowed (STREAMOPS_MAX_WORKFLOW_INPUT_BYTES)", len(req.Input), l.MaxInputBytes)}
	}
	return nil
}

// checkTask applies the limits to a task submission.
func (l Limits) checkTask(req TaskRequest) error {
	if len(req.Data) > l.MaxTaskDataBytes {
		return &ValidationError{Field: "data", Reason: fmt.Sprintf("is %d bytes; at most %d are allowed (STREAMOPS_MAX_TASK_DATA_BYTES)", len(req.Data), l.MaxTaskDataBytes)}
	}
	return nil
}
