package status

// The webhook event lifecycle (seed 004's webhook_events.status):
// received → processing → completed | failed | skipped, and failed →
// processing again when the event is routed again. A row never moves back:
// a processor that already settled it completed is not overwritten by a
// late "processing".
const (
	WebhookReceived   = "received"
	WebhookProcessing = "processing"
	WebhookCompleted  = "completed"
	WebhookFailed     = "failed"
	WebhookSkipped    = "skipped"
)

// WebhookAll lists every webhook event status.
func WebhookAll() []string {
	return []string{WebhookReceived, WebhookProcessing, WebhookCompleted, WebhookFailed, WebhookSkipped}
}

// webhookSources lists, per target status, the statuses a row may move to
// it from.
var webhookSources = map[string][]string{
	WebhookReceived:   {WebhookReceived},
	WebhookProcessing: {WebhookReceived, WebhookFailed},
	WebhookCompleted:  {WebhookReceived, WebhookProcessing},
	WebhookSkipped:    {WebhookReceived, WebhookProcessing},
	WebhookFailed:     {WebhookReceived, WebhookProcessing},
}

// WebhookFrom returns the statuses a webhook event may move to status to
// from, and false when to is not a status.
func WebhookFrom(to string) ([]string, bool) {
	from, ok := webhookSources[to]
	return append([]string(nil), from...), ok
}

// WebhookUnsettled lists the statuses of an event whose work has not
// ended: the rows an outcome (completed or failed) may still settle.
func WebhookUnsettled() []string { return []string{WebhookReceived, WebhookProcessing} }

// WebhookIsOutcome reports whether s is how the work an event started can
// end: completed or failed.
func WebhookIsOutcome(s string) bool { return s == WebhookCompleted || s == WebhookFailed }

// WebhookRun is the processing attempt whose ids routing a row in status,
// with retryCount attempts counted, uses: a processing row has counted the
// attempt that routed it, so routing it again repeats that attempt's ids
// and what it stored becomes a duplicate, not a twin; any other row starts
// attempt retryCount.
func WebhookRun(status string, retryCount int) int {
	if status == WebhookProcessing && retryCount > 0 {
		return retryCount - 1
	}
	return retryCount
}
