// Package outbox is the outbox relay: it claims due integration_outbox
// entries in batches, delivers each to its target (Kafka, a partner's
// webhook endpoint), and settles the batch with one bulk write: delivered,
// retry later with backoff, or dead-lettered.
//
// Partner deliveries are signed with Standard Webhooks headers whose
// webhook-id is the outbox id, so a partner can drop the duplicate an
// at-least-once relay may send after a lease expired. Each partner endpoint
// has a circuit breaker, stored so every relay and the admin API share it,
// and each partner delivery has a seed-000 partner_events document
// (direction OUT) recording every attempt.
//
// Each send to a partner goes through a chain of partner controls
// (control.go's partnerControls: disabled, auto-disable, pause,
// exhausted, hold, breaker, gate), one per control_*.go file with its own
// test: each decides before the send (go on, defer, fail) and may act
// after it. A new control is one file and one line in that list.
//
// The lifecycles the relay decides are in package status: status/outbox.go
// (an entry's statuses, the outcomes of an attempt and the status each
// leaves it in) and status/partner.go (partner_events' statuses and
// directions, and the states of a partner's circuit breaker).
// The relay decides on its own types, Entry (a claimed entry's attempts
// and outcome) and Breaker (a partner's circuit breaker); persist.go maps
// them from and to the store's documents, and nothing else here reads a
// document's fields.
//
// What must not live here: the outbox's queries and leases (package store),
// partner signing schemes (package provider), retry classification (package
// fault).
package outbox
