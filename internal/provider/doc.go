// Package provider is the pure core of webhook ingest, one entry per
// sender of webhooks (a provider such as Stripe or GitHub, or one of our
// partners): which providers we accept (an embedded providers.json, or a file named by the caller), how
// each one signs its deliveries (Stripe, GitHub, Standard Webhooks, plain
// HMAC) and how we verify them with rotated secrets, where a delivery's
// provider_event_id and event_type live, how its payload is scrubbed of PII
// before it is stored (seed 004 governance), what a partner delivery
// contributes to partner_events (seed 000), and which workflow or task an
// event type starts.
//
// Nothing here does I/O on the request path, and the package imports neither
// aws-lambda-go, the store nor the bus: the HTTP adapter builds on it. The
// two SecretSource implementations are the only code that reaches outside
// (the environment, AWS Secrets Manager behind a one-method interface).
//
// A delivery goes through, in order: Registry.Provider, Provider.TooLarge,
// a SecretSource, Provider.Verify (over the raw body), Provider.Document
// (the one JSON event the body carries: the body, or a GitHub form post's
// payload field), then on that document Provider.Identify, Provider.Redact
// (only the redacted bytes are stored), Provider.PartnerMetadata for partners,
// then Provider.Route and, for a task, TaskTemplate.BuildData on the
// redacted payload.
//
// The adapter maps errors once:
//
//   - a body larger than Provider.MaxBodyBytes (TooLarge) → 413;
//   - ErrMissingSignature, ErrInvalidSignature, ErrStaleTimestamp → 401;
//   - ErrNoSecret (no usable secret for the provider) → 500: the server is
//     misconfigured, not the sender; page someone;
//   - ErrInvalidPayload (not JSON, an identifying field missing, a form
//     body without one payload field: *FormError) → 400;
//   - an unknown provider (Registry.Provider reports false) → 404;
//   - an error from a SecretSource → 503, so the provider retries.
//
// A verified, identified event that no route matches, or that matches a
// skip route, is still stored (redacted) and then marked skipped.
//
// What must not live here: storage, publishing or HTTP framing (packages
// ingest and httpapi); this package does no I/O beyond reading its tables
// and secrets.
package provider
