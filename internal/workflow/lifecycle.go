package workflow

import (
	"fmt"
	"strconv"
	"time"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/store"
)

// Lifecycle event ids are derived, so an event emitted again by a retried
// batch is a duplicate of the first:
//
//	workflow.processing      DeriveID("evt-", workflowId, "workflow.processing", startStepIndex)
//	workflow.step.completed  DeriveID("evt-", workflowId, "workflow.step.completed", stepIndex)
//	workflow.completed       DeriveID("evt-", workflowId, "workflow.completed")
//	workflow.failed          DeriveID("evt-", workflowId, "workflow.failed")
//
// A resumed workflow emits a second workflow.processing for the step it
// resumes at, which has an id of its own.
func stepEventID(workflowID string, t events.Type, stepIndex int) string {
	return events.DeriveID(events.EventIDPrefix, workflowID, string(t), strconv.Itoa(stepIndex))
}

func endEventID(workflowID string, t events.Type) string {
	return events.DeriveID(events.EventIDPrefix, workflowID, string(t))
}

// Source is metadata.source of the events the processors emit (seed 003).
const Source = "event-processor"

// metadata is what the events of one workflow carry.
func (s *Service) metadata(wf store.Workflow) *events.Metadata {
	return &events.Metadata{Source: Source, ProcessorID: s.cfg.ProcessorID, CorrelationID: wf.CorrelationID, PartnerID: wf.PartnerID}
}

// lifecycleEvent builds a validated event with a derived id, stamped at.
func (s *Service) lifecycleEvent(p events.Payload, id string, at time.Time, wf store.Workflow) (events.Envelope, error) {
	env, err := events.NewEvent(p, s.metadata(wf))
	if err != nil {
		return env, fmt.Errorf("workflow: build %s: %w", p.EventType(), err)
	}
	env.EventID, env.Timestamp = id, events.At(at)
	return env, nil
}
