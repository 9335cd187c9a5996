// Package sweep is the retry-sweeper: the safety net behind every inline
// step of the delivery contract. Each run it publishes events that were
// stored but never published, hands due task retries back to the task
// processor, routes webhook events whose routing failed or that a crash
// left unrouted (never one whose run reached its end: that is started
// again only by an operator's new attempt), drives again the workflows, tasks and webhook events that made
// no progress for Config.StallAfter, and reconciles the partner deliveries
// seed 000's retry query selects with their outbox entries (it never sends
// one again: the relay owns partner retries, and a dead letter is final). Every pass works in bounded batches until drained or the
// invocation deadline nears, and is idempotent: a sweep that runs twice, or
// overlaps a slow inline path, only produces duplicates that the unique
// keys absorb.
//
// What must not live here: how a retry, a route or a publish is done
// (packages task, ingest, emit), and whether a workflow or task ended and
// what that makes its webhook event (workflow.State.Settled,
// task.State.Settled), nor which stored documents qualify: the store's
// queries return only what is due (ReconcilePartnerDeliveries repairs only
// deliveries whose outbox entry is over) and its writes act only where they
// apply (MarkPublished marks only events still pending). The sweeper only
// finds what is due and hands it over.
package sweep
