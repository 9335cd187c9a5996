// Package archive is the archiver (seed 001 "TTL and retention"): an event
// is copied to events_archive for permanent audit before the events TTL
// index deletes it, always, because the store gives an event its
// ttl_expires_at only once the copy is stored (store.ArchiveDue). It runs
// daily and archives every event that is due, oldest first, in bounded
// batches; runs it missed are caught up by the next one, since nothing due
// leaves events unarchived.
//
// What must not live here: the TTL itself and the archive's queries (package
// store), scheduling (EventBridge, the local stack).
package archive
