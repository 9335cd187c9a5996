package workflow

import (
	"strconv"

	"github.com/streamops/streamops/events"
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
