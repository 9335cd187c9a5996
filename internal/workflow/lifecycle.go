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
// resumes at, which has an id of its own. A rerun's run (attempt 2, 3, …)
// derives its events' ids with "attempt", n appended (runEventID), so they
// are new events beside the first run's.
//
// stepEventID also keys a step's writes (the deliver step's outbox id),
// which stay the first run's: a rerun does not repeat a write made
// before.
func stepEventID(workflowID string, t events.Type, stepIndex int) string {
	return events.DeriveID(events.EventIDPrefix, workflowID, string(t), strconv.Itoa(stepIndex))
}

func endEventID(workflowID string, t events.Type) string {
	return events.DeriveID(events.EventIDPrefix, workflowID, string(t))
}

// runEventID is id, a lifecycle event's id of the first run, for the run
// attempt.
func runEventID(id string, attempt int) string {
	if attempt <= 1 {
		return id
	}
	return events.DeriveID(events.EventIDPrefix, id, "attempt", strconv.Itoa(attempt))
}
