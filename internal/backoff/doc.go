// Package backoff computes retry delays: exponential with jitter for
// deliveries and tasks, and fixed schedules such as seed 000's partner gaps.
// A Policy is a value, so callers keep one per target and tests pass a
// deterministic random source.
//
// What must not live here: deciding whether to retry (package fault) or what
// to do once retries run out (the domain packages).
package backoff
