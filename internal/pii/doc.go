// Package pii removes personal data from the JSON documents seed 004 says
// must hold none: webhook_events.payload and integration_outbox.payload
// ("PII categorically prohibited").
//
// A Scrubber does it in one pass over the document: the whole value of a
// denied key (DefaultDenylist, compared normalised) or of a configured path
// becomes Redacted, and inside every other string, object keys included,
// each match of Patterns (email addresses, IBANs, payment card numbers,
// phone numbers) becomes its pattern's Replacement. Everything else, numbers
// included, keeps the bytes it was sent with. Default is the scrubber the
// store applies to both payload columns just before it writes them;
// package provider adds each provider's RedactPaths on the webhook path.
//
// What must not live here: I/O, configuration loading, or knowledge of a
// provider or a collection: callers pass the paths and the bytes.
package pii
