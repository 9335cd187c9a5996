// Package traceview draws one trace from the history: the webhook that
// started it, its events, the workflows and tasks it ran, their steps, the
// partner deliveries they enqueued with each delivery attempt, and the
// dead letters, as a tree of timed nodes in causal order (GET
// /api/traces/{traceId}, `streamops trace`).
//
// It reads what store.Store.GetTrace gathered; persist.go maps those
// documents into draft nodes once (the one place here that reads a store
// document's fields), and view.go links and orders them.
//
// What must not live here: the queries (package store), HTTP framing
// (package httpapi), printing (cmd/streamops).
package traceview
