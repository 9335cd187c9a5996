// Package storetest runs store-touching tests on each store engine and
// holds the contract suite every engine must pass.
//
// Open gives a test a fresh store on the engine STREAMOPS_TEST_ENGINE
// selects: "embedded" (the default, make test) or "mongodb" (MONGODB_URI,
// make test-mongo), each test in a database of its own. A test that cannot
// hold on an engine says so with Require and a named Feature, never by
// skipping silently. Proxy puts a TCP proxy between a store and its
// MongoDB so a test can cut or stall the connection. Run is the contract
// suite: idempotent writes, exclusive claims, lease recovery, the seeds'
// queries and indexes, and errors that read the same on every engine.
// Clock is the one test clock.
package storetest
