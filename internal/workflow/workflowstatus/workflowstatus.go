// Package workflowstatus is the workflow lifecycle: its statuses and which
// of them are final, defined once for the workflow-processor that decides
// them (package workflow), the store that persists them and the readers
// that report them.
//
// pending → processing → completed | failed. A workflow is active while
// pending or processing; completed and failed are final, and a
// workflow.created for a workflow that ended is skipped.
//
// It is a leaf (it imports nothing of StreamOps) so that package store can
// import it without a cycle: package workflow imports store, so the
// statuses cannot live in package workflow itself. What must not live
// here: anything that reads or writes state.
package workflowstatus

// The workflow statuses (seed 003's workflow status).
const (
	Pending    = "pending"
	Processing = "processing"
	Completed  = "completed"
	Failed     = "failed"
)

// Active lists the statuses of a workflow still to run or running.
func Active() []string { return []string{Pending, Processing} }

// IsActive reports whether a workflow in status s is still to run or
// running.
func IsActive(s string) bool { return s == Pending || s == Processing }

// IsFinal reports whether a workflow in status s has ended: completed or
// failed.
func IsFinal(s string) bool { return s == Completed || s == Failed }
