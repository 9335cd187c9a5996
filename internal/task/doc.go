// Package task is the task-processor's domain: executors by task type
// behind small interfaces (email_notification through a Mailer: SES v2 on
// AWS, .eml files locally; data_export and report_generation through an
// objects.Store: S3 on AWS, files locally; the AWS ones are built in
// package taskaws, so only the task-processor links their clients), and
// the processing of task.created and task.failed batches into seed 003's
// lifecycle: task.processing, then task.completed, task.failed (with
// nextRetryAt) or task.dead_letter.
//
// # Attempts and retries
//
// A task has one task.created, ever (its submission): attempt 0. Attempt r
// runs only while the task's projection is at retryCount r, has not ended
// and, when it failed, its nextRetryAt has come; any other delivery (a
// redelivered batch, a duplicate, a retry not yet due) is acknowledged
// without running, so an attempt runs once per successful batch and a
// delayed retry never holds back its partition. A retryable failure with
// retries left stores the task as failed with retryCount r+1 and
// nextRetryAt (exponential backoff: base 30 s, factor 2, full jitter, cap
// 1 h) and emits task.failed with that retryCount and nextRetryAt. The
// processor consumes that task.failed (seed 003: "Consumed by: Event
// Processor (for retry logic)") and runs attempt r+1 from it when it is
// due; when it is not, the retry-sweeper (Retrier, which states the whole
// contract) publishes the same stored task.failed again once nextRetryAt
// has come, also after either of them was down. A non-retryable error (an
// executor's *fault.Error with Retryable false, such as an invalid
// recipient) or a retryable one after maxRetries retries dead-letters the
// task: task.dead_letter (whose originalEvent is the submission's
// task.created), status dead_letter, and the record in tasks.dlq and
// dead_letters.
//
// # Batches
//
// The batch runs on the stream core (stream.HandleByKey; this package
// implements only its Aggregates): it loads its tasks with one query,
// runs attempts partition by partition (concurrently across partitions,
// in offset order within one), then writes: one Emit for every event, the
// dead letters, webhook outcomes, and last the task outcomes in one bulk
// write, which are what make a redelivered attempt a skip. Event ids are
// derived from (taskId, type, retryCount), so a batch that fails before its
// outcomes are written, and is delivered again, re-runs its attempts but
// stores no event twice. Executors' external effects are at least once:
// S3 keys, file names and message ids are derived from the task id, so a
// repeated export or report overwrites itself; an email sent by SES just
// before a crash may be sent again.
//
// # State and the store
//
// A task is decided on as a State (state.go): whether an attempt runs,
// whether a failure is retried or dead-letters the task, whether it awaits
// a retry, and what its end means for the webhook event that started it
// (State.Settled, which the retry-sweeper asks too) are State's methods.
// The store document (store.Task) is met in one place, persist.go:
// FromDocument at load, State.outcome at flush. The statuses themselves are
// the leaf package task/taskstatus, which the store imports too.
//
// What must not live here: Kafka decoding, dead-letter records and the batch
// loop (package stream), storage (package store), Lambda types.
package task
