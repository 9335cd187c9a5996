// Package taskstatus is the task lifecycle: its statuses and which of them
// are final, defined once for the task-processor that decides them
// (package task), the retry-sweeper that re-drives them, the store that
// persists them and the readers that report them.
//
// pending → processing → completed | failed | dead_letter. A failed task
// waits for its retry (nextRetryAt); when the retry-sweeper redelivers the
// task.failed that scheduled it, it is pending again. completed and
// dead_letter are final: an attempt of a task that ended is skipped.
//
// It is a leaf (it imports nothing of StreamOps) so that package store can
// import it without a cycle: package task imports store, so the statuses
// cannot live in package task itself. What must not live here: anything
// that reads or writes state.
package taskstatus

// The task statuses.
const (
	Pending    = "pending"
	Processing = "processing"
	Completed  = "completed"
	Failed     = "failed"
	DeadLetter = "dead_letter"
)

// Active lists the statuses of a task to run or running (a failed task
// waiting for its retry is not among them).
func Active() []string { return []string{Pending, Processing} }

// Unfinished lists the statuses a task can still move on from: every
// status but the final ones.
func Unfinished() []string { return []string{Pending, Processing, Failed} }

// IsFinal reports whether a task in status s has ended: completed or dead
// lettered.
func IsFinal(s string) bool { return s == Completed || s == DeadLetter }
