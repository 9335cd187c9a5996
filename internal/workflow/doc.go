// Package workflow is the workflow-processor's domain: the step registry,
// the built-in steps (validate, transform, store, notify, deliver), and the
// processing of workflow.created batches into seed 003's lifecycle
// (workflow.processing, one workflow.step.completed per step, then
// workflow.completed or workflow.failed).
//
// A batch runs every workflow's steps in memory, then writes in one order
// that is safe to repeat: step effects, events, webhook outcomes, and last
// the checkpoints (State.Next, StepDone). Every effect is keyed by an id
// derived from (workflowId, step index, …), so a batch that fails before
// its checkpoints runs again and writes only duplicates; steps ask for
// their writes through Effects for that reason. A run that stops early
// (a transient failure, the deadline near) checkpoints mid-run and resumes
// at its next step.
//
// A workflow is decided on as a State (state.go), mapped to and from the
// store's document in persist.go only.
//
// What must not live here: Kafka decoding, dead-lettering and the batch
// loop (package stream), storage (package store), and the Lambda types.
package workflow
