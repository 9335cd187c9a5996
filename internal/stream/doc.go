// Package stream is the MSK trigger adapter the Kafka processors share
// (workflow-processor, task-processor): it turns Lambda's events.KafkaEvent
// into batches a domain Handler acts on (DecodeKafkaEvent, and
// ToKafkaEvent for the local stack's stand-in), owns the dead-letter record
// format (DeadLetterRecord, ParseDeadLetter), and the batch semantics every
// processor must keep.
//
//   - Records are decoded and schema-checked as a consumer reads them
//     (events.Consumed: fields a newer 1.x producer added are allowed and
//     kept, ids are any up to events.MaxIDLength); a poison record
//     (undecodable, schema-invalid, another major schemaVersion, unknown
//     type, or an event type that does not belong on its topic) is
//     dead-lettered: published to
//     <topic>.dlq with the reason, original topic, partition, offset and
//     error in headers, and stored in the dead_letters collection for the
//     admin API. The batch goes on.
//   - The Handler sees only the event types it accepts; the lifecycle
//     events the processors emit onto the same topics are skipped, so
//     nothing loops.
//   - Messages stay grouped by partition in offset order; ForEachPartition
//     runs partitions concurrently and each one in order.
//   - A Handler error fails the whole batch, so Lambda delivers it again.
//     Handlers return errors only for transient failures (store or broker
//     unreachable) and make every effect idempotent, so the redelivered
//     batch does no double work. Permanent per-record failures are
//     dead-lettered through Batch.DeadLetter instead.
//
// Dead letters of one batch are stored with one bulk insert and published
// with one flush.
//
// The batch core every processor shares lives here too. A processor whose
// messages each act on one aggregate (a workflow, a task) implements only
// Aggregates: Key, Load, Rebuild, Step and Flush. HandleByKey (behind the
// Keyed handler) does the rest: it decodes each payload (dead-lettering
// the ones that do not decode), loads the batch's aggregates with one
// query, rebuilds those that have no projection (another producer
// published their event: it is set aside for the history), runs
// Step per message under the aggregate's lock, partitions concurrently and
// each in offset order, stops a partition at its first transient error, and
// calls Flush once with every aggregate that changed. Runtime carries what
// every domain is configured with (emitter, processor id, clock, deadline
// margin, logs, metrics) and builds the lifecycle events; Runtime.Commit
// writes the consumed events the history lacks, the events, dead letters
// and webhook outcomes in the one order that is safe to repeat, before the
// domain's checkpoints. A third
// processor is one new package implementing Aggregates, not a copy.
//
// The dead letter lifecycle (open → replayed | discarded) is the leaf
// package stream/deadletterstatus, which the store imports too.
//
// What must not live here: producing and topic admin (package bus), domain
// decisions (what a workflow step does, when a task is retried).
package stream
