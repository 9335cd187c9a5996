// Package ingest receives provider and partner webhooks: it verifies the
// signature, dedupes on (provider, provider_event_id), scrubs PII, stores the
// webhook event, records partner deliveries (seed 000, direction IN), and
// routes the event to a workflow or task by the provider's route table,
// creating it through package submit (the one way a workflow or task comes
// to be) and publishing the workflow.created / task.created it starts.
//
// Every id it writes is derived from the webhook event id and the row's
// attempt, so routing the same attempt again (a retried request, the
// retry-sweeper picking up a row a crash left behind or whose routing
// failed) produces duplicates, never twins. A row whose run reached its
// end is never routed again (ErrRunEnded); only an operator's NewAttempt,
// recorded on the row, starts another run, with ids of its own. It knows
// nothing of HTTP framing or Lambda: internal/httpapi serves it.
//
// The webhook event lifecycle (received → processing → completed | failed |
// skipped) is defined in package status (status/webhook.go).
//
// What must not live here: signature schemes and provider tables (package
// provider), how a workflow or task is created (package submit), HTTP framing
// (package httpapi).
package ingest
