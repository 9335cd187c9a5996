// Package submit is where workflows and tasks come to be. NewWorkflow and
// NewTask, then Creation.Store, are the one way to create either: build
// the workflow.created / task.created validated against the event catalog
// and store the workflow or task as pending, with the ids and metadata its
// Origin gives. API submissions (POST /api/workflows, POST /api/tasks,
// Service) and webhook routes (package ingest) both create through them,
// and emit the event themselves.
//
// An Idempotency-Key derives the workflow or task id, so a retried POST
// finds the first submission and answers with it instead of creating a
// second; the same key with a different request is a conflict.
//
// What must not live here: running workflows or tasks (packages workflow and
// task), webhook verification and routing (package ingest), HTTP framing
// (package httpapi).
package submit
