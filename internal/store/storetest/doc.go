// Package storetest is the contract suite every store engine must pass: the
// embedded engine always, and a real MongoDB when MONGODB_URI is set. It
// checks the delivery contract the rest of StreamOps relies on: idempotent
// writes under concurrency, exclusive claims, lease recovery, the seeds'
// queries and indexes.
package storetest
