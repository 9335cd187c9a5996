package status

// The replay session lifecycle (seed 001's ReplaySessionState.status):
// running → completed, or failed when the session could not go on or any
// event failed to replay. A session that is no longer running has ended
// and records completed_at.
const (
	ReplayRunning   = "running"
	ReplayCompleted = "completed"
	ReplayFailed    = "failed"
)

// ReplayFinished is the status a session that replayed every event ends
// in: failed when failedEvents of them could not be replayed, completed
// otherwise.
func ReplayFinished(failedEvents int64) string {
	if failedEvents > 0 {
		return ReplayFailed
	}
	return ReplayCompleted
}

// ReplayIsFinal reports whether a session in status s has ended.
func ReplayIsFinal(s string) bool { return s != ReplayRunning }

// ReplayCancelled is the status of a session an operator cancelled
// (POST /api/replays/{id}/cancel); its runner stops at its next
// checkpoint.
const ReplayCancelled = "cancelled"
