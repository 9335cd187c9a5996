// Package task is the task-processor's domain: executors by task type
// behind small interfaces (a Mailer for email_notification, an
// objects.Store for data_export and report_generation; their AWS backends
// are in taskaws, so only the task-processor links them), and the
// processing of task.created and task.failed batches into seed 003's
// lifecycle: task.processing, then task.completed, task.failed or
// task.dead_letter. The retry contract between the processor, the
// retry-sweeper and seed 003 is Retrier's doc comment.
//
// A task is decided on as a State (state.go), mapped to and from the
// store's document in persist.go only. Event ids, S3 keys and message ids
// derive from the task, so a redelivered batch stores nothing twice; an
// email sent just before a crash may be sent again.
//
// What must not live here: Kafka decoding, dead-letter records and the batch
// loop (package stream), storage (package store), Lambda types.
package task
