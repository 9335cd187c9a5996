package status

// The workflow lifecycle (seed 003's workflow status): pending →
// processing → completed | failed. A workflow is active while pending or
// processing; completed and failed are final, and a workflow.created for a
// workflow that ended is skipped.
const (
	WorkflowPending    = "pending"
	WorkflowProcessing = "processing"
	WorkflowCompleted  = "completed"
	WorkflowFailed     = "failed"
)

// WorkflowActive lists the statuses of a workflow still to run or running.
func WorkflowActive() []string { return []string{WorkflowPending, WorkflowProcessing} }

// WorkflowIsActive reports whether a workflow in status s is still to run
// or running.
func WorkflowIsActive(s string) bool { return s == WorkflowPending || s == WorkflowProcessing }

// WorkflowIsFinal reports whether a workflow in status s has ended:
// completed or failed.
func WorkflowIsFinal(s string) bool { return s == WorkflowCompleted || s == WorkflowFailed }
