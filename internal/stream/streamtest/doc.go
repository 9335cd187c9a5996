// Package streamtest builds and loads MSK batch fixtures (testdata/msk) for
// the processors' tests: reproducible ids, partitions from the producer's
// own key partitioner, per-partition offsets, and files encoded in the
// field order Lambda sends.
//
// It is test support: nothing outside _test files may import it.
//
// What must not live here: production code, assertions about one processor.
package streamtest
