// Package provider is the pure core of webhook ingest, one entry per
// sender of webhooks (a provider such as Stripe or GitHub, or one of our
// partners): which providers we accept, how each signs its deliveries and
// how we verify them with rotated secrets, where a delivery's id and type
// live, how its payload is scrubbed of PII before it is stored, what a
// partner delivery adds to partner_events, and which workflow or task an
// event type starts.
//
// A delivery goes through Registry.Provider, Provider.TooLarge, a
// SecretSource, Provider.Verify (over the raw body), Provider.Document,
// then Identify, Redact, PartnerMetadata and Route on that document. The
// errors are mapped to HTTP once, by the adapter (package ingest).
//
// What must not live here: storage, publishing or HTTP framing (packages
// ingest and httpapi); this package does no I/O beyond reading its tables
// and secrets.
package provider
