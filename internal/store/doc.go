// Package store is StreamOps' MongoDB persistence: the events history
// (seed 001), webhook_events and integration_outbox (seed 004),
// partner_events (seed 000), and the workflow, task and replay projections.
//
// It is written once against lungo's driver-shaped interfaces, so the same
// code runs on MongoDB and on lungo's in-process engine; what the engines
// do differently is decided once, in featuresOf, each with a fallback that
// gives the same answers. Every write is a single-document operation keyed
// by a deterministic id, safe to repeat; there are no transactions. It is
// one package split by aggregate into files (workflows.go, tasks.go, …).
//
// What must not live here: domain policy and lifecycles. Callers decide,
// the store records; the statuses and their transitions are package status,
// a leaf the store imports (boundary_test.go), and no package outside the store
// decides on a store document's lifecycle fields (decisions_test.go).
package store
