// Package store is StreamOps' MongoDB persistence: the events history
// (seed 001), webhook_events and integration_outbox (seed 004),
// partner_events (seed 000), and the workflow, task and replay projections.
//
// It is written once against lungo's driver-shaped interfaces, so the same
// code runs on a real MongoDB (lungo wraps the official driver when
// MONGODB_URI is set) and on lungo's in-process engine (tests and the local
// stack). Every write is a single-document atomic operation keyed by a
// deterministic id, so it is safe to repeat; there are no multi-document
// transactions. Duplicate keys from either engine surface as ErrDuplicate.
//
// Where the engine is MongoDB the store uses MongoDB: aggregation for the
// stats, seed 001's text index for search, sparse indexes as the seeds
// declare them. The embedded engine has no aggregation pipeline (Aggregate
// panics there), no text index and no $regex, so each of those is used only
// behind the features decided once in featuresOf, with a fallback beside
// it that gives the same answers; nothing else looks at the engine.
//
// Domain policy (when to retry, how long to back off) does not live here:
// callers decide, the store records. Nor do the lifecycles: the statuses of
// workflows, tasks, webhook events, outbox entries, partner events, replays
// and dead letters, and the transitions between them, are defined in a
// leaf package beside the code that decides each (workflow/workflowstatus,
// task/taskstatus, ingest/webhookstatus, outbox/outboxstatus,
// outbox/partnerstatus, history/replaystatus, stream/deadletterstatus).
// The domain packages import the store, so the store cannot import them;
// the leaves import nothing of StreamOps, so both can import the leaves,
// and the store uses their lists (active, due, unsettled) in its queries.
// boundary_test.go keeps it so.
//
// The documents are not the domain's types either: the workflow and task
// processors decide on workflow.State and task.State, mapped from and to
// this package's documents in one file each (persist.go), and no package
// outside the store reads a workflow's or task's status, steps or retries
// off a document to decide (decisions_test.go; it also lists which
// packages still decide on the other documents, a list that may only
// shrink).
//
// The store stays one package split by aggregate into files (workflows.go,
// tasks.go, webhooks.go, outbox.go, …), each holding its aggregate's
// document, writes and queries: the aggregates share the engine features,
// the typed reads (find.go: one document, all matches, a page, by ids), the
// bulk-write helpers (bulk.go) and the error mapping, and each domain
// package declares the few methods it needs as an interface of its own.
package store
