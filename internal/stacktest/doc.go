// Package stacktest starts the real components a StreamOps test needs, in
// the test process: a Kafka-protocol broker (franz-go's kfake) with the
// topics created as on MSK, the store on the engine enginetest selects
// (embedded, or MongoDB in make test-mongo), the producer and the
// emitter. Tests then drive the code under test through them and read the
// results back from the broker and the store, nothing mocked.
//
// What must not live here: assertions about any one package, production
// code.
package stacktest
