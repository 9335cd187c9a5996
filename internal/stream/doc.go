// Package stream is the MSK trigger adapter the Kafka processors share
// (workflow-processor, task-processor) and the one batch core they plug
// their domain into. It turns Lambda's events.KafkaEvent into batches
// (DecodeKafkaEvent; ToKafkaEvent for the local stack), owns the
// dead-letter record format (DeadLetterRecord, ParseDeadLetter), and keeps
// the batch semantics: poison records are dead-lettered and the batch goes
// on; each partition is handled in offset order, partitions concurrently;
// a Handler error (transient only) fails the whole batch so Lambda
// delivers it again. Every message the core accepts or dead-letters has
// seed 003's "Event processed" line (package eventlog) once its batch's
// outcome is known.
//
// A processor whose messages each act on one aggregate implements only
// Aggregates (Key, Load, Rebuild, Step, Flush); HandleByKey does the rest,
// and Runtime.Commit writes a batch's events, dead letters and webhook
// outcomes in the one order that is safe to repeat. Origin is where an
// aggregate came from, which both processors' states embed and their
// events carry (Runtime.Metadata). A third processor is one new package
// implementing Aggregates, not a copy.
//
// What must not live here: producing and topic admin (package bus), domain
// decisions (what a workflow step does, when a task is retried).
package stream
