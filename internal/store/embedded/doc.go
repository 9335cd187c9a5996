// Package embedded is how the embedded engine's data (lungo, in process)
// reaches the disk: two lungo.Store implementations the local stack hands
// to store.Config.Backing.
//
//   - JournalFileStore, the default: every commit appends what it changed
//     to a journal and fsyncs it before the commit returns, so an
//     acknowledged write survives kill -9 and power loss. A record torn by
//     a crash was never acknowledged; Load drops it. A failed append fails
//     its commit and is cut back off the journal.
//   - BackgroundFileStore, opted into with STREAMOPS_STORE_FLUSH_INTERVAL:
//     a commit returns before it is on disk and the newest catalog is
//     written at most every interval, so a crash loses about the last
//     interval of acknowledged writes; a clean stop (Close) loses nothing.
//
// On disk: the snapshot is lungo's own file format (one BSON document,
// streamed a document at a time to a temporary file, fsynced, renamed over the old one and its
// directory fsynced), the file store.Config.DataDir selects too. The
// journal beside it, <snapshot>.journal.<generation>, is a sequence of
// records, each its length and CRC-32C (4 bytes little endian each) and a
// BSON list of whole-document puts, deletes by _id, index sets and drops.
// Load replays the journal over the snapshot and folds both into a new
// snapshot; the journal is folded again once it outgrows the snapshot
// (at least DefaultJournalCompactBytes), in the background and paced to
// a quarter of a core while commits come, and on Close. FoldJournal does
// the same for a data file the background store is about to take over.
//
// It imports nothing of StreamOps; its tests open the store on it.
package embedded
