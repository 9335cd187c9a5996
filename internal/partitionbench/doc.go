// Package partitionbench holds the measurement of throughput against
// partitions (issue 36; docs/performance.md): the local stack, its
// processors behind the MSK stand-in, draining the same load of
// workflows from a workflows topic of 3 partitions and of 12, on the
// engine under test (STREAMOPS_TEST_ENGINE). It has no non-test code
// beyond this comment.
package partitionbench
