package store

import "github.com/256dpi/lungo"

// Collection is the named collection, for tests that write documents as
// an earlier version stored them.
func (s *Store) Collection(name string) lungo.ICollection {
	return s.client.Database(s.cfg.Database).Collection(name)
}

// WorkStartedByQuery is the filter and sort WorkStartedBy sends for row,
// for tests that ask the engine how it serves them.
func WorkStartedByQuery(row WebhookEvent) (filter, sort any) {
	f, s := workStartedBy(row)
	if s == nil {
		return f, nil
	}
	return f, s
}

// SetUpdateBatch makes the id-less multi-document writes (updateMatching)
// change at most n documents a command until the test ends.
func SetUpdateBatch(t interface{ Cleanup(func()) }, n int) {
	old := updateBatch
	updateBatch = n
	t.Cleanup(func() { updateBatch = old })
}
