// Package replaystatus is the replay session lifecycle (seed 001's
// ReplaySessionState.status), defined once for the replayer that decides it
// (package history), the store that persists it and the API that reports
// it.
//
// running → completed, or failed when the session could not go on or any
// event failed to replay. A session that is no longer running has ended
// and records completed_at.
//
// It is a leaf (it imports nothing of StreamOps) so that package store can
// import it without a cycle: package history imports store, so the
// statuses cannot live in package history itself. What must not live here:
// anything that reads or writes state.
package replaystatus

// The replay session statuses.
const (
	Running   = "running"
	Completed = "completed"
	Failed    = "failed"
)

// Finished is the status a session that replayed every event ends in:
// failed when failedEvents of them could not be replayed, completed
// otherwise.
func Finished(failedEvents int64) string {
	if failedEvents > 0 {
		return Failed
	}
	return Completed
}

// IsFinal reports whether a session in status s has ended.
func IsFinal(s string) bool { return s != Running }
