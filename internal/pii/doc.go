// Package pii finds personal data in JSON documents and free text, and
// removes it or replaces it with references: seed 004 says
// webhook_events.payload and integration_outbox.payload hold none, and
// issue 34 extends that to every copy StreamOps keeps.
//
// A Scrubber walks a document once. The whole value of a denied key
// (DefaultDenylist, compared normalised, and every key KeyCategory names
// by its ending) or of a configured path is a finding; so is each datum
// found by value inside the other strings (Patterns: email addresses,
// IBANs, card and phone numbers, IP addresses; read through
// percent-encoding too, and a base64 string whose decoded content holds
// one), and a card or phone number sent as a JSON number. Each Finding
// has a Category. Scrub redacts them, Replace puts what a Replacer
// returns in their place (a Reference, when tokenising), Findings lists
// them; everything else keeps the bytes it was sent with. References are
// never findings, so a tokenised document stays as it is. ScrubText does
// the by-value part on free text (log lines, answer bodies). Default is
// the scrubber the store applies to both payload columns; package provider
// adds each provider's RedactPaths on the webhook path.
//
// What must not live here: I/O, keys and sealing (package vault),
// configuration loading, or knowledge of a provider or a collection:
// callers pass the paths and the bytes.
package pii
