// Package fault is the one retry classification of StreamOps: a typed
// Error that says whether trying again can help, the Classifier interface
// errors that aggregate others implement, and IsRetryable, the one place
// that decides whether a failure is transient (a dependency's failure:
// network, timeout, broker or store unavailable) or permanent (it fails
// again on redelivery).
//
// Domain packages classify at their boundary (a task executor's untyped
// error is retryable, a workflow step's is not) by wrapping with Transient
// or Permanent; they do not write their own IsRetryable. What must not live
// here: retry schedules (package backoff), dead-lettering (package stream),
// anything that decides what to do once a failure is classified.
package fault
