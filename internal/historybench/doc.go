// Package historybench measures the events history on the MongoDB engine
// for docs/capacity.md's "The history at a billion documents": the data
// and index bytes a million workflow lifecycle events take in events with
// every index of store.Indexes, per index, and how fast the engine's TTL
// monitor deletes archived events. make history runs it at 200,000
// events; CI runs a few executions, which proves the mechanism. It has no
// non-test code beyond this comment.
package historybench
