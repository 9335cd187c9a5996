// Package history serves the event history beyond browsing: replays (seed
// 001 ReplayConfig / ReplaySessionState / ReplayError) that re-publish
// stored events in their original order, and exports that stream matching
// events as NDJSON or CSV, spilling to an object store (S3, or a file
// locally) when the result outgrows a Lambda response. Both select events
// with store.ReplayFilter, the one filter browse uses too.
//
// The replay session lifecycle is in package status (status/replay.go).
// A replay is decided as a session
// (session.go) and a requeued dead letter as a deadLetter; persist.go maps
// both from and to the store's documents, and nothing else here reads a
// document's fields.
//
// What must not live here: the event queries and filters (package store),
// HTTP framing (package httpapi), the object store (package objects).
package history
