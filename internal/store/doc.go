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
// The embedded engine has no aggregation pipeline, no text index and no
// $regex: nothing here may call Aggregate or IndexView.ListSpecifications,
// and the few features that differ per engine (sparse and text indexes,
// search) are switched on Store.Engine().
//
// Domain policy (when to retry, how long to back off) does not live here:
// callers decide, the store records.
package store
