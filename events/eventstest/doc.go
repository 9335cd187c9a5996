// Package eventstest builds seed-003 envelopes field for field, for the
// tests of the packages that carry events (bus, stream). What must not live
// here: anything a production binary imports.
package eventstest
