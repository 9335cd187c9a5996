// Package status is every lifecycle StreamOps persists: the statuses of a
// webhook event, an outbox entry, a partner delivery and its endpoint's
// circuit breaker, a dead letter, a task, a workflow and a replay session,
// and the transitions between them. One file per lifecycle; each name says
// its lifecycle (TaskPending, WebhookFrom, OutboxDue).
//
// The domain package that decides a lifecycle, the store that persists it
// and the API that reports it all take its statuses from here. It is a leaf
// (it imports nothing of StreamOps), so the store can import it although
// the deciding packages import the store. What must not live here:
// anything that reads or writes state.
package status
