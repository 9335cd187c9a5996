// Package loadprobe measures the webhook path as a user's senders meet
// it: N concurrent senders post signed webhooks (by default Stripe
// invoice.finalized, each starting the 3-step Invoice Sync workflow) to
// a base URL, some of them re-deliveries, and the probe reports
// deliveries/s, p50, p99 and errors (Probe). Fill brings a store to a
// number of stored events quickly by copying, with fresh ids, the
// documents real webhooks left in every collection (Capture), so a
// measurement on a full store needs no hour of traffic first.
//
// make bench's BenchmarkWebhookLatency (this package's) and make soak
// (streamops soak, Soak) run it against the local stack. What must not
// live here: the stack itself (internal/local) and any handler.
package loadprobe
