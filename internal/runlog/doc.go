// Package runlog is how StreamOps's programs write their log lines: the
// JSON logger each function and the local stack build (New), whose
// handler replaces personal data in every line before it is written
// (Scrubbing), and the line a scheduled function's run ends with
// (Finished: outbox-relay, retry-sweeper, archiver), at info when the run
// did something and at debug when it was idle, so a schedule of seconds
// does not bury the lines worth reading.
//
// What must not live here: what a line says (its callers decide) or where
// the lines go beyond an io.Writer.
package runlog
