// Package workflow is the workflow-processor's domain: the step registry,
// the built-in steps (validate, transform, store, notify, deliver), and the
// processing of workflow.created batches into seed 003's lifecycle
// (workflow.processing, one workflow.step.completed per step, then
// workflow.completed or workflow.failed).
//
// # Batches, checkpoints and idempotency
//
// A batch is run in three phases: load the projections of every workflow
// in it with one query; run each workflow's steps in memory, partitions
// concurrently and each partition in offset order; then write everything
// the run produced with one bulk write per collection, in this order:
// step effects (workflow_records, tasks, integration_outbox), the events
// (one Emit: one unordered bulk insert, one publish flush), webhook_events
// outcomes, and last the workflow checkpoints.
//
// The checkpoint of a step is its StepDone entry and the advanced
// State.Next (the stored stepResults and currentStepIndex). Writing it after each step would cost a round trip per
// step per workflow (thousands per batch), so checkpoints are written in
// bulk when the batch's steps have run, after the effects and events they
// vouch for are durable. That is safe because every effect of a step is
// keyed by an id derived from (workflowId, step index, …): record ids,
// task ids, outbox ids and event ids (events.DeriveID). If the batch fails
// before its checkpoints are written, Lambda delivers it again, the steps
// run again in memory and every write they repeat is a duplicate the store
// drops, so nothing happens twice. Steps therefore ask for their writes
// through Effects rather than writing themselves.
//
// A workflow's progress is checkpointed mid-run, with the records the next
// step reads (resumeRecords), when its run stops early: a step failed
// transiently (see fault.Transient), or the Lambda deadline is near. The batch
// then fails after those checkpoints are written, and the redelivered batch
// resumes each such workflow at its next step, never repeating a finished
// one. A workflow.created for a workflow that already ended (completed or
// failed) is skipped, as seed 003's idempotency example does.
//
// Input records and step parameters come from the workflow's input; see
// ParseInput. The batch loop is the stream core's (stream.HandleByKey);
// this package implements only its Aggregates.
//
// # State and the store
//
// A workflow is decided on as a State (state.go): where its run starts,
// whether a failed step is retried, how it ended, and what that means for
// the webhook event that started it (State.Settled, which the
// retry-sweeper asks too) are State's methods. The store document
// (store.WorkflowCheckpoint) is met in one place, persist.go: FromDocument
// at load, State.document at flush. The statuses themselves are the leaf
// package workflow/workflowstatus, which the store imports too. What must
// not live here:
// Kafka decoding, dead-lettering and the batch loop (package stream),
// storage (package store), and the Lambda types.
package workflow
