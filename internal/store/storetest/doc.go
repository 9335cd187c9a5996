// Package storetest is the contract suite every store engine must pass: the
// embedded engine in make test, the MongoDB at MONGODB_URI in make
// test-mongo (the engine comes from internal/store/enginetest). It
// checks the delivery contract the rest of StreamOps relies on: idempotent
// writes under concurrency, exclusive claims, lease recovery, the seeds'
// queries and the seeds' indexes with their options, the partner scope,
// stats, and errors that are the same on every engine (duplicates,
// unavailable, documents no engine can store).
//
// What must not live here: tests of code above the store.
package storetest
