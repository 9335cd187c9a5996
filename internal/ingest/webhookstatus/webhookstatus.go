// Package webhookstatus is the webhook event lifecycle (seed 004's
// webhook_events.status): its statuses and the transitions between them,
// defined once for the code that decides them (webhook ingest, the
// processors that settle the work an event started, the retry-sweeper),
// the store that persists them and the API that filters by them.
//
// received → processing → completed | failed | skipped, and failed →
// processing again when the event is routed again. A row never moves back:
// a processor that already settled it completed is not overwritten by a
// late "processing".
//
// It is a leaf (it imports nothing of StreamOps) so that package store can
// import it without a cycle: package ingest imports store, so the statuses
// cannot live in package ingest itself. What must not live here: anything
// that reads or writes state.
package webhookstatus

// The webhook event statuses (seed 004).
const (
	Received   = "received"
	Processing = "processing"
	Completed  = "completed"
	Failed     = "failed"
	Skipped    = "skipped"
)

// All lists every webhook event status.
func All() []string { return []string{Received, Processing, Completed, Failed, Skipped} }

// sources lists, per target status, the statuses a row may move to it from.
var sources = map[string][]string{
	Received:   {Received},
	Processing: {Received, Failed},
	Completed:  {Received, Processing},
	Skipped:    {Received, Processing},
	Failed:     {Received, Processing},
}

// From returns the statuses a webhook event may move to status to from,
// and false when to is not a status.
func From(to string) ([]string, bool) {
	from, ok := sources[to]
	return append([]string(nil), from...), ok
}

// Unsettled lists the statuses of an event whose work has not ended: the
// rows an outcome (completed or failed) may still settle.
func Unsettled() []string { return []string{Received, Processing} }

// IsOutcome reports whether s is how the work an event started can end:
// completed or failed.
func IsOutcome(s string) bool { return s == Completed || s == Failed }

// Run is the processing attempt whose ids routing a row in status, with
// retryCount attempts counted, uses: a processing row has counted the
// attempt that routed it, so routing it again repeats that attempt's ids
// and what it stored becomes a duplicate, not a twin; any other row starts
// attempt retryCount.
func Run(status string, retryCount int) int {
	if status == Processing && retryCount > 0 {
		return retryCount - 1
	}
	return retryCount
}
