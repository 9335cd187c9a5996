// Package enginetest picks the store engine a test runs on, so every
// store-touching test is written once and runs on each engine: the
// embedded one always (make test), a MongoDB-wire server when the tier
// asks for it (make test-mongo).
//
// The engine is chosen per test process by STREAMOPS_TEST_ENGINE
// ("embedded", the default, or "mongodb", which needs MONGODB_URI). Each
// test on MongoDB gets a database of its own, dropped when it ends. A test
// that cannot hold on an engine says so with Require and a named Feature,
// never by skipping silently; the skip message names the feature and the
// engine, and the tier's summary counts those skips apart from the runs.
//
// Proxy (ProxyURI) puts a TCP proxy between a store and its MongoDB, so a
// test of the Network feature can cut the connection or stall it (the
// server paused) and bring it back.
//
// Nothing here is imported by production code.
//
// What must not live here: the contract tests themselves (package
// storetest).
package enginetest
