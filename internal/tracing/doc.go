// Package tracing carries one W3C trace from a provider's webhook to a
// partner's endpoint, and records it as OpenTelemetry spans when asked.
//
// Two things are separate on purpose:
//
//   - The trace context always propagates. Every request and record is
//     handled inside a span context (the caller's traceparent continued,
//     or a new trace), so every event carries metadata.traceId, every
//     Kafka record and partner request a traceparent header, and every
//     log line trace_id and span_id, whether spans are recorded or not.
//     The history's trace view (GET /api/traces/{traceId}) needs nothing
//     else.
//   - Spans are recorded and exported only when a Provider is enabled
//     (STREAMOPS_TRACING=true): OTLP/HTTP to a collector, on AWS the ADOT
//     layer's, which sends them to X-Ray. Disabled, Start costs a context
//     lookup and, at an entry point without a caller's trace, two random
//     ids.
//
// The Provider travels in the context (WithProvider): the invocation
// wrappers put it there, and every package below starts its spans with
// Start, so no constructor takes a tracer and one process can hold
// several functions (the local stack), each with its own service name.
package tracing
