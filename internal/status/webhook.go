package status

// The webhook event lifecycle (seed 004's webhook_events.status):
// received → processing → completed | failed | skipped, and failed →
// processing again when a routing failure is routed again. A row never
// moves back: a processor that already settled it completed is not
// overwritten by a late "processing". Only an operator's new attempt
// (store.StartWebhookAttempt) starts an ended row's lifecycle over, at
// received, as its next attempt.
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

// WebhookRunEnded reports whether a webhook event in status, whose current
// attempt did (runStarted) or did not start a run, reached its end:
// completed or skipped, or failed after its run started (its workflow or
// task failed). Such an event is never routed again by a machine; only an
// operator's new attempt starts it again. Failed before a run started is
// a routing failure, routed again.
func WebhookRunEnded(status string, runStarted bool) bool {
	switch status {
	case WebhookCompleted, WebhookSkipped:
		return true
	case WebhookFailed:
		return runStarted
	}
	return false
}
