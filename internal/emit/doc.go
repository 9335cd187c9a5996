// Package emit is the store-then-publish path every writer of domain events
// uses (webhook ingest, the API, the processors): events go into the events
// collection with one bulk insert, then the new ones are published with one
// flush, then marked published with one update.
//
// It never publishes an event it did not store, and a publish failure is
// not an error of Emit: the events stay marked unpublished and the
// retry-sweeper publishes them later. Only a failed store is an error, so a
// caller answers 2xx exactly when the events are durably stored.
package emit
