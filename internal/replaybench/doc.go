// Package replaybench holds the measurements of replays at scale
// (docs/performance.md): a whole replay against the floor of storing and
// publishing the same events raw, webhook p99 while a replay runs at its
// default rate against p99 with none, and a replay at scale on MongoDB
// (100,000 events in make bench; a few batches in CI, which proves the
// mechanism). It has no non-test code beyond this comment.
package replaybench
