// Package archive is the archiver (seed 001 "TTL and retention"): before the
// events TTL index deletes an event, it is copied to events_archive for
// permanent audit. It runs daily and copies every event that expires within
// the look-ahead window, so nothing expires between two runs unarchived.
//
// What must not live here: the TTL itself and the archive's queries (package
// store), scheduling (EventBridge, the local stack).
package archive
