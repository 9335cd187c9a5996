// Package partners manages the partner endpoints kept in the store (issue
// 35): a Registry creates, changes, disables, deletes and rotates them
// for the admin API, sealing each signing secret with the personal-data
// key mechanism (vault.Wrapper) and showing it once; a Directory gives
// every relay instance the partners and their live secrets as they are
// now, re-read every few seconds; Import seeds the store from the
// partners file at start. It never logs, returns or stores a secret in
// clear, and does not deliver anything itself (package outbox does).
package partners
