// Package testenv starts the real components a StreamOps test needs, in
// the test process: a Kafka-protocol broker (franz-go's kfake) with the
// topics created as on MSK, the store on the engine storetest selects
// (embedded, or MongoDB in make test-mongo), the producer and the
// emitter. Tests then drive the code under test through them and read the
// results back from the broker and the store, nothing mocked.
//
// It also holds what the tests of a running stack share: a broker of
// their own (Broker), reading a topic from its start (Scan, Consume) and a
// record's headers (Header), a client of the stack's HTTP routes (API),
// polling (Eventually), signing a delivery as a provider does (Sign), the
// repository's testdata/ (Testdata, GoldenJSON), the stack's output
// (Output) and the size of a large-volume test (Volume).
//
// What must not live here: assertions about any one package, production
// code, and anything that imports internal/local (its own tests use this
// package).
package testenv
