// Package streamtest is the test support the processors share: it builds
// and loads MSK batch fixtures (testdata/msk) with reproducible ids,
// partitions from the producer's own key partitioner, per-partition
// offsets, and files encoded in the field order Lambda sends; it wires a
// processor as its Lambda does on the real broker and store (Harness, with
// a stepping Clock); it runs every kind of poison record against a
// processor (RunPoisons); and it runs the processors' benchmarks
// (BenchProcessor, and BenchProcessorOnly against Discard).
//
// It is test support: nothing outside _test files may import it.
//
// What must not live here: production code, assertions about one processor.
package streamtest
