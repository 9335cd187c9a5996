// Package e2e holds the end-to-end tests of the local stack: each starts
// the whole system in the test process (internal/local) on free ports with
// its data in a temporary directory, and drives it only as a user would,
// through HTTP and Kafka, to the final states the issue describes. It has
// no non-test code beyond this comment.
package e2e
