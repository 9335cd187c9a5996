package status

// The task lifecycle: pending → processing → completed | failed |
// dead_letter. A failed task waits for its retry (nextRetryAt); when the
// retry-sweeper redelivers the task.failed that scheduled it, it is
// pending again. completed and dead_letter are final: an attempt of a task
// that ended is skipped.
const (
	TaskPending    = "pending"
	TaskProcessing = "processing"
	TaskCompleted  = "completed"
	TaskFailed     = "failed"
	TaskDeadLetter = "dead_letter"
)

// TaskActive lists the statuses of a task to run or running (a failed task
// waiting for its retry is not among them).
func TaskActive() []string { return []string{TaskPending, TaskProcessing} }

// TaskUnfinished lists the statuses a task can still move on from: every
// status but the final ones.
func TaskUnfinished() []string { return []string{TaskPending, TaskProcessing, TaskFailed} }

// TaskIsFinal reports whether a task in status s has ended: completed or
// dead lettered.
func TaskIsFinal(s string) bool { return s == TaskCompleted || s == TaskDeadLetter }
