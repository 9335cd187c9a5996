package store

import "github.com/256dpi/lungo"

// Collection is the named collection, for tests that write documents as
// an earlier version stored them.
func (s *Store) Collection(name string) lungo.ICollection {
	return s.client.Database(s.cfg.Database).Collection(name)
}
