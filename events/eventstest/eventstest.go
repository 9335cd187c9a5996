package eventstest

import (
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/streamops/streamops/events"
)

// UUIDFrom reads a version 4 UUID from r (crypto/rand for tests, a seeded
// stream for reproducible fixtures).
func UUIDFrom(r io.Reader) string {
	var b [16]byte
	if _, err := io.ReadFull(r, b[:]); err != nil {
		panic(err)
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// NewUUID is a random version 4 UUID.
func NewUUID() string { return UUIDFrom(rand.Reader) }

// MustJSON is v as JSON; it panics on what cannot be encoded.
func MustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// Pad is a JSON object whose one field, pad, holds n bytes of "x": data
// or input of a chosen size.
func Pad(n int) json.RawMessage {
	return MustJSON(map[string]string{"pad": strings.Repeat("x", n)})
}

// Metadata of the builders' events: an API submission, a processor.
var (
	APIMetadata       = &events.Metadata{Source: "api-gateway", UserID: events.Null, APIVersion: "1.0.0"}
	ProcessorMetadata = &events.Metadata{Source: "event-processor", ProcessorID: "worker-1"}
)

// envelope is a seed-003 envelope of type typ with id evt-evtID, written
// at ts, carrying payload as JSON.
func envelope(typ events.Type, evtID string, ts events.Time, meta *events.Metadata, payload any) events.Envelope {
	return events.Envelope{
		EventType: typ, EventID: "evt-" + evtID, Timestamp: ts, SchemaVersion: events.SchemaVersion,
		Payload: MustJSON(payload), Metadata: meta,
	}
}

// The builders below write seed-003 envelopes field for field; the ids
// are the UUIDs without their prefix.

// WorkflowCreated is a workflow.created of wf-wfID.
func WorkflowCreated(evtID, wfID, name, priority string, at time.Time, steps ...string) events.Envelope {
	ts := events.At(at)
	return envelope(events.WorkflowCreated, evtID, ts, APIMetadata, struct {
		WorkflowID string      `json:"workflowId"`
		Name       string      `json:"name"`
		Steps      []string    `json:"steps"`
		Priority   string      `json:"priority"`
		CreatedAt  events.Time `json:"createdAt"`
	}{"wf-" + wfID, name, steps, priority, ts})
}

// WorkflowProcessing is a workflow.processing of wf-wfID at step.
func WorkflowProcessing(evtID, wfID string, at time.Time, step string, index int) events.Envelope {
	ts := events.At(at)
	return envelope(events.WorkflowProcessing, evtID, ts, ProcessorMetadata, struct {
		WorkflowID       string      `json:"workflowId"`
		StartedAt        events.Time `json:"startedAt"`
		CurrentStep      string      `json:"currentStep"`
		CurrentStepIndex int         `json:"currentStepIndex"`
	}{"wf-" + wfID, ts, step, index})
}

// WorkflowStepCompleted is a workflow.step.completed of wf-wfID, without metadata.
func WorkflowStepCompleted(evtID, wfID string, at time.Time, step string, index int, durationMs int64) events.Envelope {
	ts := events.At(at)
	return envelope(events.WorkflowStepCompleted, evtID, ts, nil, struct {
		WorkflowID  string         `json:"workflowId"`
		StepName    string         `json:"stepName"`
		StepIndex   int            `json:"stepIndex"`
		CompletedAt events.Time    `json:"completedAt"`
		Duration    int64          `json:"duration"`
		Result      map[string]int `json:"result"`
	}{"wf-" + wfID, step, index, ts, durationMs, map[string]int{"recordsProcessed": 1000}})
}

// WorkflowCompleted is a workflow.completed of wf-wfID.
func WorkflowCompleted(evtID, wfID string, at time.Time, durationMs int64, steps int) events.Envelope {
	ts := events.At(at)
	return envelope(events.WorkflowCompleted, evtID, ts, ProcessorMetadata, struct {
		WorkflowID     string         `json:"workflowId"`
		CompletedAt    events.Time    `json:"completedAt"`
		Duration       int64          `json:"duration"`
		StepsCompleted int            `json:"stepsCompleted"`
		Summary        map[string]int `json:"summary"`
	}{"wf-" + wfID, ts, durationMs, steps, map[string]int{"totalRecords": 1000, "successfulRecords": 950, "failedRecords": 50}})
}

// TaskCreated is a first-attempt task.created of task-taskID.
func TaskCreated(evtID, taskID, taskType string, at time.Time, data any) events.Envelope {
	ts := events.At(at)
	return envelope(events.TaskCreated, evtID, ts, &events.Metadata{Source: "api-gateway", UserID: events.Null}, struct {
		TaskID     string      `json:"taskId"`
		Type       string      `json:"type"`
		Data       any         `json:"data"`
		RetryCount int         `json:"retryCount"`
		MaxRetries int         `json:"maxRetries"`
		CreatedAt  events.Time `json:"createdAt"`
	}{"task-" + taskID, taskType, data, 0, 3, ts})
}

// Unlisted is a name no list of the catalog can hold: task types, steps
// and signature schemes are lower snake case (events
// TestListedNamesAreLowerSnakeCase, provider
// TestSignatureSchemesAreOneList), and Unlisted has capitals and a space.
// It is the negative case of the tests that a list refuses what it does
// not name, so that adding a name to a list (sms_notification, jwt, …)
// can never turn such a case into a positive one that tests nothing.
const Unlisted = "Not Listed"
