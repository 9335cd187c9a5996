// Package replaybench holds the measurements of replays at scale
// (docs/performance.md): a whole replay against the floor of storing and
// publishing the same events raw, webhook p99 while a replay runs at its
// default rate against p99 with none, and a 100,000-event replay on
// MongoDB. It has no non-test code beyond this comment.
package replaybench
