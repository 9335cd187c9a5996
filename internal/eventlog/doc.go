// Package eventlog writes seed 003's two log lines ("Example Logging"): the
// producer's "Event published" for every event a StreamOps producer
// published (topic, eventType, the aggregate id, partition, offset) and the
// consumer's "Event processed" for every event a processor acted on
// (topic, eventType, the aggregate id, processingTime in milliseconds,
// success), with the field names the seed writes. The aggregate id is keyed
// workflowId on workflows, taskId on tasks and partnerId on operations.
//
// Lines are at info, as the seed logs them, and sampled by event id (a
// Sampling), so that at thousands of events a second a deployment can keep
// a share of them: an event is either kept on both sides (its published and
// its processed lines) or on neither. A processed line that says
// success=false is always written.
//
// What must not live here: where the lines are written from (internal/bus
// publishes, internal/stream processes), and every other log line.
package eventlog
